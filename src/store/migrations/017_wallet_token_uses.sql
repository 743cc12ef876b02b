-- Wallet tokens are accepted once (issue 16): a Google Pay messageId or an Apple Pay transactionId is recorded
-- when a payment takes the token, and a second payment with it is refused (token_replayed). Rows past expires_at
-- can be purged: by then the token itself is refused as expired.
CREATE TABLE wallet_token_uses (
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  wallet TEXT NOT NULL,
  message_id TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, wallet, message_id)
);
