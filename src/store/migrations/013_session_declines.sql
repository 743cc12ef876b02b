-- Hosted Checkout lets a payer try again after a decline, up to a number of attempts per session: the
-- count of a session's declined attempts is read on each decline, through this index (only declined rows).
CREATE INDEX payments_session_declined ON payments (session_id) WHERE status = 'decline';
