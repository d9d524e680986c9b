-- Apps (tenants). Secrets are AES-GCM sealed under the master key: the gateway must compute
-- HMACs with them, so a hash would not do (docs/api.md#apps).
CREATE TABLE apps (
  id                  text PRIMARY KEY,
  name                text NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('test', 'sandbox', 'live')),
  api_key             text NOT NULL UNIQUE,
  signing_secret_enc  text NOT NULL,
  webhook_secret_enc  text NOT NULL,
  webhook_url         text,
  allowed_providers   text[] NOT NULL,
  allowed_methods     jsonb NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE customers (
  app_id            text NOT NULL REFERENCES apps (id),
  external_user_id  text NOT NULL,
  email             text,
  payments_count    integer NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, external_user_id)
);

-- One invoice sequence for the whole gateway (docs/api.md#invoice-numbers).
CREATE SEQUENCE invoice_number_seq;

CREATE TABLE payments (
  id                 text PRIMARY KEY,
  app_id             text NOT NULL REFERENCES apps (id),
  mode               text NOT NULL CHECK (mode IN ('test', 'sandbox', 'live')),
  status             text NOT NULL DEFAULT 'initiated'
                     CHECK (status IN ('initiated', 'succeeded', 'failed', 'canceled')),
  amount_minor       bigint NOT NULL CHECK (amount_minor > 0),
  currency           text NOT NULL,
  method             text NOT NULL,
  provider           text NOT NULL,
  provider_ref       text,
  external_user_id   text NOT NULL,
  email              text,
  return_url         text NOT NULL,
  metadata           jsonb NOT NULL DEFAULT '{}',
  invoice_number     text,
  last_error         text NOT NULL DEFAULT '',
  checkout_url       text,
  qr_string          text,
  qr_image_url       text,
  -- When the provider's own expiry passes; the reconciler asks the provider after it.
  provider_deadline  timestamptz,
  finalized_at       timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX payments_provider_ref_key ON payments (provider, provider_ref)
  WHERE provider_ref IS NOT NULL;
CREATE INDEX payments_app_created_idx ON payments (app_id, created_at DESC);
CREATE INDEX payments_initiated_deadline_idx ON payments (provider_deadline)
  WHERE status = 'initiated';

-- Idempotency keys (docs/api.md#idempotency). A row is 'processing' while one request owns the key (lease in locked_until),
-- 'released' when that request failed (the key is free again; resource_id lets a retry
-- resume the same payment instead of registering a second one), 'completed' with the
-- stored response to replay.
CREATE TABLE idempotency_keys (
  app_id           text NOT NULL,
  endpoint         text NOT NULL,
  key              text NOT NULL,
  request_hash     text NOT NULL,
  state            text NOT NULL CHECK (state IN ('processing', 'released', 'completed')),
  locked_until     timestamptz,
  resource_id      text,
  response_status  integer,
  response_body    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, endpoint, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- State of the built-in provider simulators (test mode), shared by every instance.
CREATE TABLE sim_objects (
  provider         text NOT NULL,
  kind             text NOT NULL,
  id               text NOT NULL,
  idempotency_key  text,
  data             jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, kind, id)
);
CREATE UNIQUE INDEX sim_objects_idempotency_key ON sim_objects (provider, kind, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
