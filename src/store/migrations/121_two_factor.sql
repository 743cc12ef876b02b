-- Two-factor sign-in (issue 30) for operator console users and merchant portal users alike: a TOTP secret
-- (RFC 6238) sealed with the vault keyring like every configuration secret (AES-256-GCM, bound to its row, and
-- re-sealed by the key rotation), the last time step a code was accepted for (a code works once), and one-time
-- recovery codes kept as SHA-256 digests (each is 50 random bits shown once: a plain digest is enough).
-- id is '<kind>:<user id>', kind operator or merchant (the users live in two tables).
CREATE TABLE two_factor (
  id              text PRIMARY KEY,
  secret          jsonb NOT NULL,
  -- Null while the set-up waits for its first code.
  enabled_at      timestamptz,
  last_time_step  bigint,
  created_at      timestamptz NOT NULL
);

CREATE TABLE two_factor_recovery_codes (
  two_factor_id  text NOT NULL REFERENCES two_factor(id) ON DELETE CASCADE,
  code_digest    bytea NOT NULL,
  used_at        timestamptz,
  PRIMARY KEY (two_factor_id, code_digest)
);

-- A console session of an operator who must set up two-factor sign-in first (REQUIRE_TWO_FACTOR) may do only that.
ALTER TABLE console_sessions ADD COLUMN needs_enrolment boolean NOT NULL DEFAULT false;
