-- Settlement statements and payouts to merchants (issue 27). A statement settles one merchant's money in one
-- currency over [period_from, period_to): what was captured less refunds (pending -> available), the fees
-- deducted, the rolling reserve held; its entries are keyed by the statement, and (merchant, currency,
-- period_to) is unique, so two nodes running the settlement worker at once produce each statement once.
CREATE TABLE settlement_statements (
  id              text PRIMARY KEY,
  merchant_id     text NOT NULL,
  currency        text NOT NULL,
  period_from     timestamptz NOT NULL,
  period_to       timestamptz NOT NULL,
  gross           bigint NOT NULL,
  fees            bigint NOT NULL,
  reserve_held    bigint NOT NULL,
  reserve_release_at timestamptz,
  reserve_released_at timestamptz,
  net             bigint NOT NULL,
  transactions    integer NOT NULL,
  created_at      timestamptz NOT NULL,
  UNIQUE (merchant_id, currency, period_to)
);
CREATE INDEX settlement_statements_reserve_due ON settlement_statements (reserve_release_at) WHERE reserve_released_at IS NULL AND reserve_held > 0;

-- A payout to the merchant: one per statement at most, marked paid with the bank's reference.
CREATE TABLE merchant_payouts (
  id              text PRIMARY KEY,
  statement_id    text NOT NULL UNIQUE,
  merchant_id     text NOT NULL,
  currency        text NOT NULL,
  amount          bigint NOT NULL,
  bank_reference  text NOT NULL,
  paid_by         text,
  paid_at         timestamptz NOT NULL
);
