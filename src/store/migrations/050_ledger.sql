-- Money (issue 27): fee schedules, each merchant's money terms, and the double-entry ledger.
--
-- A fee schedule is one version of a merchant's fees (merchant_id NULL: the platform's default), in force from
-- effective_from until the next version; its rows are the pure rules' (domain/ledger/fees.ts) as JSON. Versions
-- are never changed: a change is a new version from a later date, so a payment keeps the fee it was posted with.
CREATE TABLE fee_schedules (
  id              text PRIMARY KEY,
  merchant_id     text,
  effective_from  timestamptz NOT NULL,
  rows            jsonb NOT NULL,
  created_by      text,
  created_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX fee_schedules_version ON fee_schedules (COALESCE(merchant_id, ''), effective_from);

-- A merchant's money terms: its country (the card region of a fee: domestic, intra-region, international), the
-- settlement delay (T+N days), and the rolling reserve (a share of each settled amount, held N days).
CREATE TABLE merchant_money_terms (
  merchant_id            text PRIMARY KEY,
  country                text,
  settlement_delay_days  integer NOT NULL DEFAULT 2 CHECK (settlement_delay_days BETWEEN 0 AND 90),
  reserve_ppm            bigint NOT NULL DEFAULT 0 CHECK (reserve_ppm BETWEEN 0 AND 1000000),
  reserve_days           integer NOT NULL DEFAULT 0 CHECK (reserve_days BETWEEN 0 AND 365),
  updated_at             timestamptz NOT NULL
);

-- The entries: append-only, one debit and one credit per money event (amount signed, debit positive). The key
-- (ref, event, account) makes every posting idempotent: ref is the transaction (or settlement, payout,
-- adjustment) that caused it, so the same cause can never post twice.
CREATE TABLE ledger_entries (
  ref         text NOT NULL,
  event       text NOT NULL,
  account     text NOT NULL,
  currency    text NOT NULL,
  amount      bigint NOT NULL,
  payment_id  text,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (ref, event, account)
);
CREATE INDEX ledger_entries_payment ON ledger_entries (payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX ledger_entries_account ON ledger_entries (account, currency, created_at);

CREATE FUNCTION refuse_ledger_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'ledger entries are append-only: a correction is a new entry' USING ERRCODE = 'insufficient_privilege'; END $$;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION refuse_ledger_change();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION refuse_ledger_change();

-- Running balances, kept by the statement that writes the entries (the sum of the entries, read in O(1)).
CREATE TABLE ledger_accounts (
  account   text NOT NULL,
  currency  text NOT NULL,
  balance   bigint NOT NULL DEFAULT 0,
  entries   bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account, currency)
);
