-- A claimed receipt mail holds its claim until next_attempt_at (domain/receipt-mail.ts): a sender that died after
-- its claim leaves the row 'sending', and the receipt mailer claims it again once that time has passed.
UPDATE receipt_mails SET next_attempt_at = created_at WHERE status = 'sending' AND next_attempt_at IS NULL;
CREATE INDEX receipt_mails_sending ON receipt_mails (next_attempt_at) WHERE status = 'sending';
