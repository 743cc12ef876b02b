-- One row per acquirer attempt of a payment's authorization (issue 24): the first MID the router chose, each MID a
-- cascade moved to, a scheduled charge. It replaces the list details.routing.attempts, which was kept inside the
-- payment's JSON and only when there was more than one attempt or a decline stopped the cascade.
--
-- id is the transaction the attempt opened (transactions.id: the authorization request sent to the acquirer,
-- our reference and idempotency key there). A 3-D Secure or provider step continues the same attempt (its
-- completion has a transaction of its own); follow-ups (capture, refund, void) are transactions, not attempts.
-- The outcome is written with the payment's outcome, in the same statement; the ledger (its acquirer receivable
-- per MID), the risk engine (declines per card, per MID) and disputes (the acquirer's reference) read it here.
CREATE TABLE payment_attempts (
  id            text PRIMARY KEY,
  payment_id    text NOT NULL REFERENCES payments(id),
  -- 1, 2, ... in the order the attempts were made.
  seq           integer NOT NULL CHECK (seq > 0),
  mid_id        text,
  connector     text,
  -- routed: the router's choice; cascade: the next candidate after a retryable decline; scheduled: a schedule's charge.
  why           text NOT NULL,
  -- pending (sent, no answer yet), challenge, redirect (waiting for the payer), approved, declined.
  status        text NOT NULL,
  -- The unified decline code (domain/declines.ts) and its retry decision (no, later, other_mid).
  decline_code  text,
  retry         text,
  -- Why no further attempt followed this one: hard_decline, authenticated, not_retryable, no_more_candidates,
  -- max_attempts, integrity.
  stop          text,
  -- The acquirer's reference of the attempt, once it answered.
  acquirer_ref  text,
  amount        bigint NOT NULL,
  currency      text NOT NULL,
  created_at    timestamptz NOT NULL,
  -- When the acquirer's final word (approved, declined) was written; null while the attempt is open.
  finished_at   timestamptz,
  UNIQUE (payment_id, seq)
);

-- The attempts recorded so far, moved out of the payments' JSON. The list only ever held answered attempts; the
-- instant of each is its transaction's (the payment's when the transaction is gone), finished when it was final.
INSERT INTO payment_attempts (id, payment_id, seq, mid_id, connector, why, status, decline_code, retry, stop, amount, currency, created_at, finished_at)
SELECT a.value->>'transId', p.id, a.seq::integer, a.value->>'midId', m.connector, COALESCE(a.value->>'why', 'routed'),
  COALESCE(a.value->>'outcome', 'pending'), a.value->>'code', a.value->>'retry', a.value->>'stop', p.amount, p.currency,
  COALESCE(t.created_at, p.created_at),
  CASE WHEN a.value->>'outcome' IN ('approved', 'declined') THEN GREATEST(COALESCE(t.created_at, p.created_at), p.updated_at) END
FROM payments p
CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(p.details->'routing'->'attempts') = 'array' THEN p.details->'routing'->'attempts' ELSE '[]'::jsonb END)
  WITH ORDINALITY AS a(value, seq)
LEFT JOIN transactions t ON t.id = a.value->>'transId'
LEFT JOIN mids m ON m.id = a.value->>'midId'
WHERE a.value->>'transId' IS NOT NULL
ON CONFLICT DO NOTHING;

UPDATE payments SET details = details #- '{routing,attempts}' WHERE details->'routing'->'attempts' IS NOT NULL;
