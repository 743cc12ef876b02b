-- Portcullis initial schema. Amounts are bigint minor units; ids are text (uuid strings or opaque tokens).

CREATE TABLE merchants (
  id                text PRIMARY KEY,
  name              text NOT NULL,
  merchant_key      text NOT NULL UNIQUE,
  -- The shared secret signs every request and callback, so it must be readable by the gateway.
  password          text NOT NULL,
  sandbox           boolean NOT NULL DEFAULT true,
  notification_url  text,
  hash_algorithm    text NOT NULL DEFAULT 'md5' CHECK (hash_algorithm IN ('md5', 'sha256')),
  -- Protocol Mapping, override link target, return parameters and similar admin options.
  settings          jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE mids (
  id                    text PRIMARY KEY,
  merchant_id           text NOT NULL REFERENCES merchants(id),
  name                  text NOT NULL,
  connector             text NOT NULL,
  payment_mode          text NOT NULL DEFAULT 'SMS/DMS' CHECK (payment_mode IN ('SMS', 'DMS', 'SMS/DMS')),
  card_on_file_support  boolean NOT NULL DEFAULT false,
  enabled               boolean NOT NULL DEFAULT true,
  priority              integer NOT NULL DEFAULT 0,
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mids_merchant ON mids (merchant_id);

CREATE TABLE sessions (
  id            text PRIMARY KEY,
  merchant_id   text NOT NULL REFERENCES merchants(id),
  operation     text NOT NULL,
  order_number  text NOT NULL,
  amount        bigint NOT NULL,
  currency      text NOT NULL,
  description   text NOT NULL,
  -- The validated request: methods, parameters, urls, customer, billing_address, custom_data, flags.
  request       jsonb NOT NULL,
  expires_at    timestamptz NOT NULL,
  status        text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paid')),
  payment_id    text,
  created_at    timestamptz NOT NULL
);

CREATE TABLE card_vault (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants(id),
  -- AES-256-GCM of the PAN; key_id names the key so keys can rotate.
  key_id       text NOT NULL,
  iv           text NOT NULL,
  ciphertext   text NOT NULL,
  auth_tag     text NOT NULL,
  pan_mask     text NOT NULL,
  first6_last4 text NOT NULL,
  exp_month    text NOT NULL,
  exp_year     text NOT NULL,
  holder       text,
  created_at   timestamptz NOT NULL
);

CREATE TABLE card_tokens (
  token        text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants(id),
  vault_id     text NOT NULL REFERENCES card_vault(id),
  created_at   timestamptz NOT NULL
);

CREATE TABLE payments (
  id               text PRIMARY KEY,
  -- Insertion order, to order payments of one order that share a timestamp.
  seq              bigserial NOT NULL,
  merchant_id      text NOT NULL REFERENCES merchants(id),
  session_id       text REFERENCES sessions(id),
  channel          text NOT NULL,
  operation        text NOT NULL,
  order_id         text NOT NULL,
  amount           bigint NOT NULL,
  currency         text NOT NULL,
  description      text NOT NULL DEFAULT '',
  status           text NOT NULL,
  auth             boolean NOT NULL DEFAULT false,
  captured_amount  bigint NOT NULL DEFAULT 0,
  refunded_amount  bigint NOT NULL DEFAULT 0,
  mid_id           text REFERENCES mids(id),
  vault_id         text REFERENCES card_vault(id),
  card_token       text,
  payer            jsonb NOT NULL DEFAULT '{}'::jsonb,
  three_ds         jsonb,
  decline_reason   text,
  custom_data      jsonb,
  callback_url     text,
  details          jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- A follow-up or authorization in flight at the connector; claimed by compare-and-set so that two
  -- racing requests cannot both reach the acquirer.
  pending_operation text,
  version          integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX payments_order ON payments (merchant_id, order_id, created_at DESC, seq DESC);
CREATE INDEX payments_in_flight ON payments (updated_at) WHERE pending_operation IS NOT NULL;

CREATE TABLE transactions (
  id          text PRIMARY KEY,
  payment_id  text NOT NULL REFERENCES payments(id),
  type        text NOT NULL,
  status      text NOT NULL,
  amount      bigint NOT NULL,
  details     jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL
);
CREATE INDEX transactions_payment ON transactions (payment_id, created_at);

-- Callback outbox: written in the same transaction as the state change it reports.
CREATE TABLE callbacks (
  id               text PRIMARY KEY,
  merchant_id      text NOT NULL REFERENCES merchants(id),
  payment_id       text,
  url              text NOT NULL,
  -- 'checkout' accepts any 2xx; 's2s' needs a 2xx with body OK.
  protocol         text NOT NULL CHECK (protocol IN ('checkout', 's2s')),
  fields           jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  locked_until     timestamptz,
  last_error       text,
  created_at       timestamptz NOT NULL,
  delivered_at     timestamptz
);
CREATE INDEX callbacks_due ON callbacks (next_attempt_at) WHERE status = 'pending';
CREATE INDEX callbacks_payment ON callbacks (payment_id);

CREATE TABLE callback_attempts (
  id           bigserial PRIMARY KEY,
  callback_id  text NOT NULL REFERENCES callbacks(id),
  attempted_at timestamptz NOT NULL,
  http_status  integer,
  outcome      text NOT NULL,
  error        text,
  duration_ms  integer NOT NULL
);
CREATE INDEX callback_attempts_callback ON callback_attempts (callback_id);

-- Five timeouts of one URL within five minutes block it for fifteen minutes, for every merchant.
CREATE TABLE callback_url_health (
  url            text PRIMARY KEY,
  timeouts       timestamptz[] NOT NULL DEFAULT '{}',
  blocked_until  timestamptz
);

CREATE TABLE idempotency_keys (
  merchant_id    text NOT NULL,
  key            text NOT NULL,
  request_hash   text NOT NULL,
  status_code    integer,
  response_body  text,
  created_at     timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, key)
);
