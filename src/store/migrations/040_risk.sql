-- The risk engine (issue 26).

-- Rule sets: one current row per scope ('platform', or a merchant's id), every saved version kept beside it (an
-- earlier version is restored by saving it again as a new version). A platform without a row runs the built-in
-- card-testing defaults (src/domain/risk/defaults.ts) as its version 0.
CREATE TABLE risk_rule_sets (
  scope       text PRIMARY KEY,
  version     integer NOT NULL,
  rules       jsonb NOT NULL,
  updated_at  timestamptz NOT NULL,
  updated_by  text
);

CREATE TABLE risk_rule_set_versions (
  scope       text NOT NULL,
  version     integer NOT NULL,
  rules       jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  created_by  text,
  note        text,
  PRIMARY KEY (scope, version)
);

-- Allow and block lists. value is what an operator listed (a card: its fingerprint, never a PAN; an e-mail lower
-- case; an IP or CIDR block, also kept as cidr for containment; a BIN of 6 to 8 digits). Expired entries stay
-- until deleted but never match.
CREATE TABLE risk_list_entries (
  id          text PRIMARY KEY,
  scope       text NOT NULL,
  list        text NOT NULL CHECK (list IN ('allow', 'block')),
  kind        text NOT NULL CHECK (kind IN ('card', 'bin', 'email', 'email_domain', 'ip', 'country', 'device')),
  value       text NOT NULL,
  network     cidr,
  reason      text NOT NULL,
  expires_at  timestamptz,
  created_at  timestamptz NOT NULL,
  created_by  text,
  UNIQUE (scope, list, kind, value)
);
CREATE INDEX risk_list_entries_value ON risk_list_entries (kind, value);

-- Velocity counters, bucketed by minute (grain 1) and by hour (grain 60): a window of up to two hours sums minute
-- buckets, a longer one hour buckets. Each payment adds to one of 8 shards of its buckets, so concurrent payments of
-- one merchant (or one busy IP) do not queue on one row; reads sum the shards. key is a keyed hash (card
-- fingerprint, e-mail, IP, device, session) or the merchant's id; currency keeps amounts of one currency apart.
CREATE TABLE risk_velocity (
  dimension   text NOT NULL,
  key         text NOT NULL,
  grain       smallint NOT NULL,
  bucket      timestamptz NOT NULL,
  shard       smallint NOT NULL,
  currency    text NOT NULL,
  attempts    bigint NOT NULL DEFAULT 0,
  approvals   bigint NOT NULL DEFAULT 0,
  declines    bigint NOT NULL DEFAULT 0,
  amount      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (dimension, key, grain, bucket, shard, currency)
);
CREATE INDEX risk_velocity_bucket ON risk_velocity (bucket);

-- Distinct cards (fingerprints) seen per key and bucket: inserts that never update, so no row is contended.
CREATE TABLE risk_velocity_members (
  dimension   text NOT NULL,
  key         text NOT NULL,
  grain       smallint NOT NULL,
  bucket      timestamptz NOT NULL,
  member      text NOT NULL,
  PRIMARY KEY (dimension, key, grain, bucket, member)
);
CREATE INDEX risk_velocity_members_bucket ON risk_velocity_members (bucket);

-- Each screened payment's evaluation (what the admin payment view shows, what backtests compare with), with the
-- keys its counters were written under, so the outcome is counted under the same keys. review: null, or the
-- operator review's state (pending, approved, declined) with its deadline.
CREATE TABLE risk_evaluations (
  payment_id      text PRIMARY KEY,
  merchant_id     text NOT NULL,
  created_at      timestamptz NOT NULL,
  action          text NOT NULL,
  score           smallint NOT NULL,
  evaluation      jsonb NOT NULL,
  keys            jsonb NOT NULL,
  currency        text NOT NULL,
  amount          bigint NOT NULL,
  outcome         text,
  review          text,
  review_deadline timestamptz
);
CREATE INDEX risk_evaluations_merchant ON risk_evaluations (merchant_id, created_at);
CREATE INDEX risk_evaluations_review ON risk_evaluations (review_deadline) WHERE review = 'pending';
