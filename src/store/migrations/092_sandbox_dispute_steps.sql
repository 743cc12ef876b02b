-- Disputes (issue 29): the sandbox raises a chargeback on a sandbox payment and plays its timeline (notice ->
-- chargeback -> defence period end -> outcome) on the merchant's test clock. One row per step still to come;
-- run_at and due_at are times of the merchant's clock (the real clock shifted by its test clock's offset).
CREATE TABLE sandbox_dispute_steps (
  id           text PRIMARY KEY,
  dispute_id   text NOT NULL REFERENCES disputes(id),
  merchant_id  text NOT NULL,
  seq          integer NOT NULL,
  event        text NOT NULL,
  run_at       timestamptz NOT NULL,
  -- The deadline the step sets on the dispute (the chargeback's defence period end).
  due_at       timestamptz,
  done_at      timestamptz,
  UNIQUE (dispute_id, seq)
);
CREATE INDEX sandbox_dispute_steps_due ON sandbox_dispute_steps (run_at) WHERE done_at IS NULL;
