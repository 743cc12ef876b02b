-- Issue 12. Per-merchant webhook signing secrets (Standard Webhooks), sealed with the vault keyring (the key
-- id is inside the envelope, so keys rotate). After a rotation the previous secret still signs beside the
-- new one until previous_expires_at, so receivers can switch without losing callbacks.
CREATE TABLE merchant_signing_secrets (
  merchant_id          text PRIMARY KEY REFERENCES merchants(id),
  sealed               jsonb NOT NULL,
  created_at           timestamptz NOT NULL,
  previous_sealed      jsonb,
  previous_expires_at  timestamptz
);

-- Rate limits shared by every node: one row per (limit, subject, window start), counted with an upsert.
CREATE TABLE rate_limit_counters (
  bucket        text NOT NULL,
  window_start  timestamptz NOT NULL,
  hits          integer NOT NULL,
  expires_at    timestamptz NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_limit_counters_expiry ON rate_limit_counters (expires_at);
