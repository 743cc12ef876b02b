-- Callback dispatcher support (decisions D7).

-- Fencing token of the current claim: a dispatcher whose lease expired cannot settle a callback that another
-- dispatcher has claimed since.
ALTER TABLE callbacks ADD COLUMN lease_token text;

-- The form body, encoded once at enqueue: every attempt sends the same bytes in the caller's field order
-- (jsonb does not keep key order). fields stays the readable copy for the admin side.
ALTER TABLE callbacks ADD COLUMN body text;

-- Admin event log: a merchant's callbacks, newest first.
CREATE INDEX callbacks_merchant ON callbacks (merchant_id, created_at DESC);

-- Enqueue order: the callbacks of one payment are delivered one at a time in this order, so a receiver never
-- sees "settled" before the "3ds" step that preceded it.
ALTER TABLE callbacks ADD COLUMN seq bigserial;
CREATE INDEX callbacks_payment_seq ON callbacks (payment_id, seq) WHERE status = 'pending';
