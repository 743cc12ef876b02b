-- The operator console's sign-in sessions (issue 14), in the store so that any node serves any session. The
-- cookie carries a random secret; only its SHA-256 digest is kept, as for API tokens. The CSRF token is
-- answered to the console at sign-in and required, in a header, on every state-changing request the cookie
-- authenticates.
CREATE TABLE console_sessions (
  id            text PRIMARY KEY,
  secret_digest bytea NOT NULL UNIQUE,
  user_id       text NOT NULL REFERENCES operator_users(id),
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  -- The absolute end, however active the session is.
  expires_at    timestamptz NOT NULL,
  ended_at      timestamptz
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);
