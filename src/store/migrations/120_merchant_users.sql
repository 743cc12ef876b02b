-- The merchant portal's users (issue 30): people of a merchant's business, apart from the PSP's operator users.
-- Each belongs to one merchant or to a merchant group an operator defines (a business with several shops), with
-- a role of the portal's permission table (domain/merchant-roles.ts). A user is invited (operator or the
-- merchant's owner) and sets the password through the invitation's link; the password is an scrypt digest.
CREATE TABLE merchant_groups (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE merchant_group_members (
  group_id     text NOT NULL REFERENCES merchant_groups(id),
  merchant_id  text NOT NULL REFERENCES merchants(id),
  PRIMARY KEY (group_id, merchant_id)
);
CREATE INDEX merchant_group_members_merchant ON merchant_group_members (merchant_id);

CREATE TABLE merchant_users (
  id             text PRIMARY KEY,
  email          text NOT NULL,
  name           text NOT NULL,
  merchant_id    text REFERENCES merchants(id),
  group_id       text REFERENCES merchant_groups(id),
  role           text NOT NULL CHECK (role IN ('owner', 'developer', 'finance', 'support', 'viewer')),
  password_hash  text,
  disabled       boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  -- Exactly one of the two: the user's business is one merchant or one group.
  CHECK ((merchant_id IS NULL) <> (group_id IS NULL))
);
CREATE UNIQUE INDEX merchant_users_email ON merchant_users (lower(email));
CREATE INDEX merchant_users_merchant ON merchant_users (merchant_id);
CREATE INDEX merchant_users_group ON merchant_users (group_id);

-- An invitation's link carries a random token; only its SHA-256 digest is kept. Accepting it sets the password
-- once (a compare-and-set on accepted_at), before expires_at.
CREATE TABLE merchant_invitations (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES merchant_users(id),
  token_digest  bytea NOT NULL UNIQUE,
  invited_by    text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  accepted_at   timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX merchant_invitations_user ON merchant_invitations (user_id);

-- The merchant's own audit log: entries about a merchant's business carry its id (portal writes, and operator
-- writes on the merchant's users), or its group's id (a group's users), so the portal lists them without reading
-- other merchants' entries.
ALTER TABLE audit_log ADD COLUMN merchant_id text;
ALTER TABLE audit_log ADD COLUMN merchant_group_id text;
CREATE INDEX audit_log_merchant ON audit_log (merchant_id, at DESC, id DESC) WHERE merchant_id IS NOT NULL;
CREATE INDEX audit_log_merchant_group ON audit_log (merchant_group_id, at DESC, id DESC) WHERE merchant_group_id IS NOT NULL;

-- The portal's sign-in sessions, as the console's (migration 015): the cookie carries a random secret, only its
-- SHA-256 digest is kept; the CSRF token is answered at sign-in and required on every write.
CREATE TABLE portal_sessions (
  id            text PRIMARY KEY,
  secret_digest bytea NOT NULL UNIQUE,
  user_id       text NOT NULL REFERENCES merchant_users(id),
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  ended_at      timestamptz,
  -- Two-factor sign-in is mandatory and the user has not set it up: the session may only do that.
  needs_enrolment boolean NOT NULL DEFAULT false
);
CREATE INDEX portal_sessions_user ON portal_sessions (user_id);
