-- Adyen names a dispute by a pspReference that its examples share between payments: a dispute's acquirer
-- reference is unique per payment and source, not per source.
DROP INDEX disputes_external;
CREATE UNIQUE INDEX disputes_external ON disputes (payment_id, source, external_ref) WHERE external_ref IS NOT NULL;
