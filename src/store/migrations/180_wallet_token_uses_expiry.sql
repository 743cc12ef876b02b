-- The risk pruner deletes wallet token uses past their token's validity (expires_at), in batches: an index on the
-- expiry finds them without reading the whole table.
CREATE INDEX IF NOT EXISTS wallet_token_uses_expires_at ON wallet_token_uses (expires_at);
