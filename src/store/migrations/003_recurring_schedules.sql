-- Recurring payments and payment schedules (issue 4). Civil dates are text 'YYYY-MM-DD' (UTC): both drivers
-- return them as written, and they order as dates do.

-- A schedule is a merchant's template (CREATE_SCHEDULE); chains subscribe to it.
CREATE TABLE schedules (
  id                             text PRIMARY KEY,
  merchant_id                    text NOT NULL REFERENCES merchants(id),
  name                           text NOT NULL,
  interval_length                integer NOT NULL CHECK (interval_length > 0),
  interval_unit                  text NOT NULL CHECK (interval_unit IN ('day', 'week', 'month', 'year')),
  day_of_month                   smallint CHECK (day_of_month BETWEEN 1 AND 31),
  payments_count                 integer NOT NULL CHECK (payments_count > 0),
  delayed_first_payment          text NOT NULL DEFAULT 'none'
                                 CHECK (delayed_first_payment IN ('none', 'delay_by_interval', 'day_of_week', 'day_of_month')),
  first_payment_interval_length  integer,
  first_payment_interval_unit    text,
  first_payment_day_of_week      smallint,
  first_payment_day_of_month     smallint,
  paused                         boolean NOT NULL DEFAULT false,
  -- Set by the first payment request that names the schedule; a used schedule cannot be deleted.
  used                           boolean NOT NULL DEFAULT false,
  created_at                     timestamptz NOT NULL,
  updated_at                     timestamptz NOT NULL
);
CREATE INDEX schedules_merchant ON schedules (merchant_id);

-- One recurring chain following one schedule: what the runner charges.
CREATE TABLE schedule_subscriptions (
  id                 text PRIMARY KEY,
  schedule_id        text NOT NULL REFERENCES schedules(id),
  merchant_id        text NOT NULL REFERENCES merchants(id),
  -- The chain's initiating payment (card, payer, MID) and the payment that put the chain on the schedule.
  init_payment_id    text NOT NULL REFERENCES payments(id),
  origin_payment_id  text NOT NULL UNIQUE REFERENCES payments(id),
  recurring_token    text NOT NULL,
  operation          text NOT NULL CHECK (operation IN ('recurring', 'recurring_debit')),
  amount             bigint NOT NULL CHECK (amount > 0),
  currency           text NOT NULL,
  started_on         text NOT NULL,
  first_date         text NOT NULL,
  anchor_day         smallint NOT NULL CHECK (anchor_day BETWEEN 1 AND 31),
  next_seq           integer NOT NULL DEFAULT 1,
  last_due_date      text,
  next_due_date      text,
  -- Midnight UTC of next_due_date; null once payments_count payments fell due.
  next_due_at        timestamptz,
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'descheduled')),
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
-- A chain follows a schedule at most once at a time.
CREATE UNIQUE INDEX schedule_subscriptions_chain ON schedule_subscriptions (schedule_id, recurring_token) WHERE status = 'active';
CREATE INDEX schedule_subscriptions_due ON schedule_subscriptions (next_due_at) WHERE status = 'active';
CREATE INDEX schedule_subscriptions_schedule ON schedule_subscriptions (schedule_id);

-- Exactly once: one row per (subscription, payment number), written in the transaction that claims it,
-- together with the payment it charges. A payment-less row is a payment skipped while the schedule was paused.
CREATE TABLE schedule_charges (
  subscription_id  text NOT NULL REFERENCES schedule_subscriptions(id),
  seq              integer NOT NULL CHECK (seq > 0),
  due_date         text NOT NULL,
  payment_id       text UNIQUE REFERENCES payments(id),
  -- The claim's lease: after it, another runner may take the charge over (re-check, never re-charge).
  locked_until     timestamptz,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (subscription_id, seq)
);

-- Sandbox test clocks: how far one merchant's schedule time runs ahead of the real clock.
CREATE TABLE test_clocks (
  merchant_id  text PRIMARY KEY REFERENCES merchants(id),
  offset_ms    bigint NOT NULL CHECK (offset_ms >= 0),
  updated_at   timestamptz NOT NULL
);
