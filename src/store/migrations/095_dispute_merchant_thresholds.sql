-- Disputes (issue 29): a merchant's own monitoring threshold, set by an operator (an acquirer may hold one
-- merchant to a stricter programme); absent: the platform's (dispute_thresholds), or the default.
CREATE TABLE dispute_merchant_thresholds (
  merchant_id text PRIMARY KEY REFERENCES merchants (id) ON DELETE CASCADE,
  ratio_bp    bigint NOT NULL CHECK (ratio_bp > 0),
  min_count   bigint NOT NULL CHECK (min_count >= 0),
  updated_at  timestamptz NOT NULL,
  updated_by  text NOT NULL
);
