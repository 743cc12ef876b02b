-- The e-mailed receipt is tried again when the mail port fails (domain/receipt-mail.ts): a failed attempt puts the
-- row back to 'pending' with the attempt counted, the next attempt's time and the error; past the last attempt it
-- is 'failed' with the error kept. A claim takes only a pending row that is due.
ALTER TABLE receipt_mails ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE receipt_mails ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE receipt_mails ADD COLUMN last_error text;
