-- The operators' search by a rare status (refunds, reversals, voids, chargebacks, payments left at the payer's
-- 3-D Secure or provider step): without an index, a page of them is found by reading the newest payments until
-- enough match, which for a status one payment in a thousand has means the whole table. The index is partial:
-- a payment enters it only when it reaches one of these statuses, so the common path (prepare, then settled,
-- declined or pending) never writes to it. The search names the status as a literal (payment-search-repo.ts,
-- RARE_STATUSES) so that the planner can prove the predicate, prepared statements or not.
CREATE INDEX payments_rare_status ON payments (status, created_at DESC, id DESC)
  WHERE status IN ('3ds', 'redirect', 'refund', 'reversal', 'void', 'chargeback');
