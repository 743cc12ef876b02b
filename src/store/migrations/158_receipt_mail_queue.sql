-- Issue 31 item 14, continued: the e-mailed receipt goes when the payment succeeds, not only when the payer sees the
-- receipt page. The write that settles the payment queues the mail ('pending', in its own transaction); the receipt
-- page or the receipt mailer (whichever comes first) claims it ('sending') and sends it, once.
ALTER TABLE receipt_mails DROP CONSTRAINT receipt_mails_status_check;
ALTER TABLE receipt_mails ADD CONSTRAINT receipt_mails_status_check CHECK (status IN ('pending', 'sending', 'sent', 'failed'));
CREATE INDEX receipt_mails_pending ON receipt_mails (created_at) WHERE status = 'pending';
