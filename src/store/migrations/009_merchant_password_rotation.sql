-- Merchant password rotation (issue 11): after a rotation the previous password still verifies merchant
-- hashes until previous_password_expires_at, so a merchant can roll the new one out without a failed request.
-- Callbacks and return URLs are signed with the current password only.
ALTER TABLE merchants ADD COLUMN previous_password text;
ALTER TABLE merchants ADD COLUMN previous_password_expires_at timestamptz;
-- The admin list pages merchants newest first and searches them by name.
CREATE INDEX merchants_created ON merchants (created_at DESC, id DESC);
