-- Operators of the admin API (issue 11): users with a role, and API tokens stored as SHA-256 digests (a token
-- is 32 random bytes, so a plain digest is enough: there is nothing to brute-force). The audit log is
-- append-only: a trigger refuses every UPDATE and DELETE.
CREATE TABLE operator_users (
  id             text PRIMARY KEY,
  email          text NOT NULL UNIQUE,
  name           text NOT NULL,
  role           text NOT NULL CHECK (role IN ('admin', 'operator', 'support', 'viewer')),
  -- scrypt digest for the console's sign-in; null: the user signs in with tokens only.
  password_hash  text,
  disabled       boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE operator_tokens (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES operator_users(id),
  name          text NOT NULL,
  token_digest  bytea NOT NULL UNIQUE,
  -- The first characters, so an operator can tell tokens apart in a list without the secret.
  prefix        text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX operator_tokens_user ON operator_tokens (user_id);

CREATE TABLE audit_log (
  id           text PRIMARY KEY,
  at           timestamptz NOT NULL DEFAULT now(),
  user_id      text,
  user_name    text NOT NULL,
  action       text NOT NULL,
  object_type  text NOT NULL,
  object_id    text NOT NULL,
  -- Values before and after the change, secrets already masked by the writer.
  before       jsonb,
  after        jsonb,
  details      jsonb
);
CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_object ON audit_log (object_type, object_id, at DESC);
CREATE INDEX audit_log_user ON audit_log (user_id, at DESC);

CREATE FUNCTION refuse_audit_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = 'insufficient_privilege'; END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION refuse_audit_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION refuse_audit_change();

-- Merchants are disabled, never deleted (a disabled merchant is refused as an unknown one).
ALTER TABLE merchants ADD COLUMN disabled boolean NOT NULL DEFAULT false;
ALTER TABLE merchants ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- A MID's eligibility limits and its connector's own settings; credentials sealed with the vault keyring
-- (AES-256-GCM, key id inside the envelope, so keys rotate), never stored or returned in clear.
ALTER TABLE mids ADD COLUMN currencies text[];
ALTER TABLE mids ADD COLUMN min_amount numeric;
ALTER TABLE mids ADD COLUMN max_amount numeric;
ALTER TABLE mids ADD COLUMN descriptor text;
ALTER TABLE mids ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE mids ADD COLUMN credentials jsonb;
ALTER TABLE mids ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
