-- The console's home figures (issue 31 item 5): one row per UTC day, merchant, MID, connector, currency, outcome
-- and decline reason, counting payments (a Hosted Checkout session's tries are one payment: the approved try, or
-- the last one) and their amounts in minor units. Filled on first read for days that ended more than a day ago
-- (a day's outcomes no longer move by then); the last two days are always counted from payments. Nothing on the
-- payment write path touches these tables.
CREATE TABLE payment_figures_daily (
  day             date NOT NULL,
  merchant_id     text NOT NULL,
  -- '' when the payment never reached a MID (refused before routing).
  mid_id          text NOT NULL,
  connector       text NOT NULL,
  currency        text NOT NULL,
  outcome         text NOT NULL CHECK (outcome IN ('approved', 'declined', 'other')),
  -- '' unless declined.
  decline_reason  text NOT NULL,
  payments        bigint NOT NULL,
  amount          bigint NOT NULL
);
CREATE INDEX payment_figures_daily_day ON payment_figures_daily (day, merchant_id);

-- The days already counted into payment_figures_daily: claimed in the same statement that fills them, so two
-- nodes never count a day twice.
CREATE TABLE payment_figures_days (
  day          date PRIMARY KEY,
  counted_at   timestamptz NOT NULL
);
