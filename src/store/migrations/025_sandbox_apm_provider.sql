-- The sandbox APM provider's HTTP side (issue 17 item 8): the accounts it issued (what a provider checks a
-- caller's API key, API secret and signatures against) and its per-kind records (access tokens, references,
-- challenges, voucher transactions, known payers, notification addresses). Only the sandbox provider reads them.

CREATE TABLE sandbox_provider_accounts (
  api_key        text PRIMARY KEY,
  -- SHA-256 of the API secret: the provider keeps no secret it could leak.
  secret_digest  text NOT NULL,
  -- The account's public key (PEM, SPKI): signatures made with the MID's private key verify against it.
  public_key     text NOT NULL,
  created_at     timestamptz NOT NULL
);

CREATE TABLE sandbox_provider_records (
  kind        text NOT NULL,
  id          text NOT NULL,
  api_key     text NOT NULL REFERENCES sandbox_provider_accounts (api_key),
  data        jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (kind, id)
);
