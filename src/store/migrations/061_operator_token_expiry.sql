-- Issue 25, item 15: an operator API token may carry an expiry; past it the token authenticates nothing.
ALTER TABLE operator_tokens ADD COLUMN expires_at timestamptz;
