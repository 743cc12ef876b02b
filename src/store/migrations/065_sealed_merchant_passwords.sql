-- Merchant hash passwords sealed with the vault keyring (issue 25, item 7), as MID credentials and signing secrets
-- are: AES-256-GCM envelopes bound to the row and field. The formulas need the password itself, so it is sealed,
-- not hashed. The plaintext columns stay (empty) until every node runs this version: at start the gateway seals
-- each row still holding a plaintext password (store/merchant-passwords.ts, it needs VAULT_KEYS, which SQL has
-- not) and clears the plaintext.
ALTER TABLE merchants ADD COLUMN sealed_password jsonb;
ALTER TABLE merchants ADD COLUMN sealed_previous_password jsonb;
ALTER TABLE merchants ALTER COLUMN password DROP NOT NULL;
