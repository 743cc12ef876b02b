-- Issue 25, item 26: test and live keys. A merchant's key keeps its meaning (a sandbox merchant's key is a test
-- key, a live merchant's a live key); a live merchant is given a test key by a second, sandbox merchant row that
-- names it here (its own key, password, signing secret and sandbox MIDs; its payments, lists and callbacks apart).
ALTER TABLE merchants ADD COLUMN live_merchant_id text REFERENCES merchants (id);
CREATE UNIQUE INDEX merchants_test_key_of ON merchants (live_merchant_id) WHERE live_merchant_id IS NOT NULL;
