-- A payment's timeline (issue 31 item 6) lists the other tries of its Hosted Checkout session (its order): read by
-- session. Sessions have a handful of payments; most payments (S2S) have none, so the index leaves them out.
CREATE INDEX payments_session ON payments (session_id, created_at) WHERE session_id IS NOT NULL;
