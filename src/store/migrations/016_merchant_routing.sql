-- Smart routing (issue 15): a merchant's ordered routing rules and how many further MIDs a retryable decline
-- may cascade to, stored as the admin API takes them. NULL: no rules (priority order, one extra attempt).
-- The merchants trigger of 010 bumps the directory version, so every node routes by the new rules at once.
ALTER TABLE merchants ADD COLUMN routing jsonb;
