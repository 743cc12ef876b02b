-- Issue 25, item 5. A request signature (the Portcullis-Signature header) is accepted once: its use is recorded
-- here by every node, and a second request carrying it is refused. A signature is refused anyway once its
-- timestamp is outside the 5-minute window, so a row is needed until then only (expires_at); each claim deletes
-- the rows past it in the same statement.
CREATE TABLE request_signature_uses (
  merchant_id  text NOT NULL REFERENCES merchants (id),
  signature    text NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, signature)
);
CREATE INDEX request_signature_uses_expiry ON request_signature_uses (expires_at);
