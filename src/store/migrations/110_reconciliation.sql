-- Reconciliation (issue 28): each acquirer's settlement report matched against what the gateway recorded.
--
-- A MID's reconciliation profile: the layout its reports come in (Adyen's Settlement details report, or a CSV
-- mapping profile), its contracted buy rates (fee rows of the ledger's shape, blended or interchange++), the
-- days after which a transaction not in any report is missing, the date window of a match by amount alone.
CREATE TABLE recon_profiles (
  mid_id            text PRIMARY KEY REFERENCES mids(id),
  csv_profile       jsonb,
  buy_rates         jsonb NOT NULL DEFAULT '{"mode":"blended","rows":[]}'::jsonb,
  settlement_days   integer NOT NULL DEFAULT 3 CHECK (settlement_days BETWEEN 0 AND 90),
  window_days       integer NOT NULL DEFAULT 3 CHECK (window_days BETWEEN 0 AND 30),
  reconcile_from    timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);

-- One imported file: one acquirer batch of one MID. (mid_id, digest) is unique: the same file twice changes
-- nothing. A corrected file for the same batch supersedes the live one (its rows stop counting).
CREATE TABLE recon_imports (
  id              text PRIMARY KEY,
  mid_id          text NOT NULL REFERENCES mids(id),
  digest          text NOT NULL,
  batch_key       text NOT NULL,
  layout          text NOT NULL,
  file_name       text,
  live            boolean NOT NULL DEFAULT true,
  superseded_by   text,
  rows            integer NOT NULL,
  totals          jsonb NOT NULL,
  bank_credits    jsonb NOT NULL DEFAULT '{}'::jsonb,
  flags           jsonb NOT NULL DEFAULT '[]'::jsonb,
  counts          jsonb NOT NULL DEFAULT '{}'::jsonb,
  period_from     timestamptz,
  period_to       timestamptz,
  created_by      text,
  created_at      timestamptz NOT NULL,
  UNIQUE (mid_id, digest)
);
CREATE UNIQUE INDEX recon_imports_live_batch ON recon_imports (mid_id, batch_key) WHERE live;
CREATE INDEX recon_imports_created ON recon_imports (created_at DESC);

-- The rows of a file (line: its line in the file) and the records of ours no file had (outcome missing, no
-- line). outcome: matched, mismatched, unexpected, missing, or booking (fees, payouts, corrections: the batch's
-- own). A record of ours is taken by one live row at most (recon_rows_record).
CREATE TABLE recon_rows (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  import_id       text NOT NULL REFERENCES recon_imports(id),
  mid_id          text NOT NULL,
  live            boolean NOT NULL DEFAULT true,
  line            integer,
  kind            text NOT NULL,
  raw_type        text NOT NULL,
  acquirer_ref    text,
  merchant_ref    text,
  modification_ref text,
  currency        text NOT NULL,
  amount          bigint NOT NULL,
  net_currency    text NOT NULL,
  net             bigint NOT NULL,
  fee             bigint NOT NULL,
  interchange     bigint NOT NULL DEFAULT 0,
  scheme_fee      bigint NOT NULL DEFAULT 0,
  method          text,
  booked_at       timestamptz NOT NULL,
  dup_key         text,
  outcome         text NOT NULL DEFAULT 'pending',
  matched_by      text,
  payment_id      text,
  record_key      text,
  differences     jsonb,
  expected_fee    bigint,
  resolution      text,
  resolution_note text,
  resolved_by     text,
  resolved_at     timestamptz
);
CREATE INDEX recon_rows_import ON recon_rows (import_id, line);
CREATE INDEX recon_rows_dup ON recon_rows (import_id, dup_key) WHERE dup_key IS NOT NULL;
CREATE UNIQUE INDEX recon_rows_record ON recon_rows (record_key) WHERE live AND record_key IS NOT NULL AND outcome IN ('matched', 'mismatched');
CREATE INDEX recon_rows_missing ON recon_rows (record_key) WHERE live AND outcome = 'missing';
CREATE INDEX recon_rows_open ON recon_rows (mid_id, booked_at) WHERE live AND resolution IS NULL AND outcome IN ('mismatched', 'missing', 'unexpected');

-- What the acquirer knows a payment by (its reference), to find our records by the report's references.
CREATE INDEX payments_connector_ref ON payments ((details->>'connectorRef')) WHERE mid_id IS NOT NULL;
