-- The fraud-dispute feed (issues 26 and 29): whether a fraud chargeback adds its payment's card fingerprint,
-- e-mail and device to a block list, which of them, in which scope and for how long. One row (none: off).
CREATE TABLE risk_dispute_feed (
  id            boolean PRIMARY KEY DEFAULT true CHECK (id),
  enabled       boolean NOT NULL,
  kinds         jsonb NOT NULL,
  scope         text NOT NULL CHECK (scope IN ('platform', 'merchant')),
  expires_days  integer CHECK (expires_days BETWEEN 1 AND 3650),
  version       integer NOT NULL,
  updated_at    timestamptz NOT NULL,
  updated_by    text
);
