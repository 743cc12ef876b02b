-- Issue 30 (reports): scheduled reports. A merchant user subscribes a report (its kind, an optional shop and
-- payments filter, a cadence, e-mail or download, how many days it is kept); the report worker on any node claims
-- a due subscription with a compare-and-set lease (lease_token, leased_until), writes the period's report as gzip
-- chunks, and in one transaction, only while the lease is still its own, marks the report ready and moves the
-- subscription to its next period: each period's report is made once whatever the number of nodes.
CREATE TABLE report_subscriptions (
  id              text PRIMARY KEY,
  user_id         text NOT NULL REFERENCES merchant_users (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('payments', 'refunds', 'callbacks', 'disputes', 'fees')),
  merchant_id     text,
  query           jsonb NOT NULL DEFAULT '{}'::jsonb,
  saved_view_id   text,
  cadence         text NOT NULL CHECK (cadence IN ('daily', 'weekly', 'monthly')),
  delivery        text NOT NULL CHECK (delivery IN ('email', 'download')),
  keep_days       integer NOT NULL CHECK (keep_days BETWEEN 1 AND 90),
  -- The end (exclusive) of the next period to report; due from next_period_to plus a grace of some minutes.
  next_period_to  timestamptz NOT NULL,
  lease_token     text,
  leased_until    timestamptz,
  created_at      timestamptz NOT NULL
);
CREATE INDEX report_subscriptions_user ON report_subscriptions (user_id, created_at);
CREATE INDEX report_subscriptions_due ON report_subscriptions (next_period_to);

CREATE TABLE reports (
  id               text PRIMARY KEY,
  subscription_id  text NOT NULL REFERENCES report_subscriptions (id) ON DELETE CASCADE,
  user_id          text NOT NULL,
  kind             text NOT NULL,
  cadence          text NOT NULL,
  merchant_ids     jsonb NOT NULL,
  period_from      timestamptz NOT NULL,
  period_to        timestamptz NOT NULL,
  status           text NOT NULL CHECK (status IN ('producing', 'ready')),
  lines            bigint NOT NULL DEFAULT 0,
  bytes            bigint NOT NULL DEFAULT 0,
  mail_state       text NOT NULL DEFAULT 'none' CHECK (mail_state IN ('none', 'due', 'sending', 'sent', 'failed')),
  mail_attempts    integer NOT NULL DEFAULT 0,
  mail_claimed_until timestamptz,
  created_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL
);
-- A period's report is ready once (the lease makes it so; this index would refuse a second).
CREATE UNIQUE INDEX reports_once ON reports (subscription_id, period_to) WHERE status = 'ready';
CREATE INDEX reports_user ON reports (user_id, created_at);
CREATE INDEX reports_expiry ON reports (expires_at);
CREATE INDEX reports_mail ON reports (mail_state) WHERE mail_state IN ('due', 'sending');

-- A report's text, gzip-compressed in chunks of about 512 KiB of CSV each, read back one chunk at a time.
CREATE TABLE report_chunks (
  report_id  text NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
  seq        integer NOT NULL,
  data       bytea NOT NULL,
  PRIMARY KEY (report_id, seq)
);
