-- Issue 31 item 14: the receipts e-mailed to payers. One row per payment, inserted before the mail is sent: the
-- primary key makes the send happen once however often the receipt page is shown.
CREATE TABLE receipt_mails (
  payment_id text PRIMARY KEY REFERENCES payments (id) ON DELETE CASCADE,
  recipient  text NOT NULL,
  status     text NOT NULL CHECK (status IN ('sending', 'sent', 'failed')),
  created_at timestamptz NOT NULL,
  sent_at    timestamptz
);
