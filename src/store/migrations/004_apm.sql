-- Alternative payment methods: the sandbox APM provider's own records and its message outbox.
-- The gateway's APM payments live in payments like every other payment (their method, payer action and
-- collected fields in details.apm); these tables belong to the sandbox provider, which only the sandbox
-- connector and the sandbox pages touch.

-- One payment as the sandbox provider sees it. end_to_end_id is the gateway's payment id, reported back in
-- the provider's notifications; reference is the provider's own id, used in its links.
CREATE TABLE sandbox_apm_payments (
  reference       text PRIMARY KEY,
  end_to_end_id   text NOT NULL,
  method          text NOT NULL,
  experience      text NOT NULL,
  intent          text NOT NULL,
  merchant_name   text NOT NULL,
  amount          bigint NOT NULL,
  currency        text NOT NULL,
  description     text NOT NULL,
  payer_email     text,
  payer_phone     text,
  state           text NOT NULL CHECK (state IN ('pending', 'executed', 'rejected')),
  reason          text,
  -- One-time code and the wrong guesses so far (the code is sandbox data, sent to the sandbox outbox).
  otp_code        text,
  otp_failures    integer NOT NULL DEFAULT 0,
  -- A QR code cannot be paid after this instant.
  expires_at      timestamptz,
  return_url      text,
  captured_amount bigint NOT NULL DEFAULT 0,
  refunded_amount bigint NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE INDEX sandbox_apm_payments_e2e ON sandbox_apm_payments (end_to_end_id);

-- E-mails, SMS and app notifications the sandbox provider "sent": readable at /sandbox/outbox by recipient.
CREATE TABLE sandbox_outbox (
  id          text PRIMARY KEY,
  seq         bigserial NOT NULL,
  channel     text NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
  recipient   text NOT NULL,
  subject     text NOT NULL,
  body        text NOT NULL,
  link        text,
  created_at  timestamptz NOT NULL
);
CREATE INDEX sandbox_outbox_recipient ON sandbox_outbox (lower(recipient), seq DESC);
