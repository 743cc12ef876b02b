-- Disputes and chargebacks (issue 29): one row per dispute of a payment (its stage, status and amount, changed by
-- compare-and-set on version), every change in dispute_events (the notice or operator act, from and to), and the
-- notices that name no known payment (kept, listed, never dropped).
CREATE TABLE disputes (
  id            text PRIMARY KEY,
  payment_id    text NOT NULL REFERENCES payments(id),
  merchant_id   text NOT NULL,
  -- Where it came from (operator, adyen) and the acquirer's reference of the dispute, unique per source.
  source        text NOT NULL,
  external_ref  text,
  amount        bigint NOT NULL,
  currency      text NOT NULL,
  reason_code   text,
  category      text NOT NULL,
  stage         text NOT NULL,
  status        text NOT NULL,
  due_at        timestamptz,
  bank_date     text,
  version       integer NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE UNIQUE INDEX disputes_external ON disputes (source, external_ref) WHERE external_ref IS NOT NULL;
CREATE INDEX disputes_payment ON disputes (payment_id);
CREATE INDEX disputes_merchant ON disputes (merchant_id, created_at DESC);

CREATE TABLE dispute_events (
  id           text PRIMARY KEY,
  dispute_id   text NOT NULL REFERENCES disputes(id),
  event        text NOT NULL,
  -- The notice's own key (a duplicate of it changes nothing); null for operator acts.
  notice_key   text UNIQUE,
  actor        text NOT NULL,
  from_stage   text,
  from_status  text,
  to_stage     text NOT NULL,
  to_status    text NOT NULL,
  money        text NOT NULL,
  details      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL
);
CREATE INDEX dispute_events_dispute ON dispute_events (dispute_id, created_at);

CREATE TABLE unmatched_dispute_notices (
  id           text PRIMARY KEY,
  source       text NOT NULL,
  notice_key   text NOT NULL UNIQUE,
  event        text NOT NULL,
  payment_ref  text,
  payload      jsonb NOT NULL,
  received_at  timestamptz NOT NULL
);
CREATE INDEX unmatched_dispute_notices_received ON unmatched_dispute_notices (received_at DESC);
