-- card_psp subscriptions: renewals are new payments linked to the first charge (docs/api.md#subscriptions).
ALTER TABLE payments ADD COLUMN subscription_id text;
ALTER TABLE payments ADD COLUMN parent_payment_id text REFERENCES payments (id);
CREATE INDEX payments_subscription_idx ON payments (subscription_id) WHERE subscription_id IS NOT NULL;

-- docs/api.md#inbound-events: every inbound provider webhook, rejected ones included, archived before anything
-- else can fail (docs/api.md#provider-webhooks). The raw bytes are kept exactly as received.
CREATE TABLE inbound_events (
  id               bigserial PRIMARY KEY,
  provider         text NOT NULL,
  received_at      timestamptz NOT NULL DEFAULT now(),
  headers          jsonb NOT NULL,
  raw_body         bytea NOT NULL,
  signature_valid  boolean NOT NULL DEFAULT false,
  mode             text,
  event_type       text,
  payment_id       text,
  outcome          text NOT NULL DEFAULT 'received'
);
CREATE INDEX inbound_events_payment_idx ON inbound_events (payment_id, received_at DESC)
  WHERE payment_id IS NOT NULL;
CREATE INDEX inbound_events_received_idx ON inbound_events (received_at DESC);

CREATE TABLE refunds (
  id             text PRIMARY KEY,
  payment_id     text NOT NULL REFERENCES payments (id),
  app_id         text NOT NULL REFERENCES apps (id),
  mode           text NOT NULL CHECK (mode IN ('test', 'sandbox', 'live')),
  status         text NOT NULL CHECK (status IN ('initiated', 'succeeded', 'failed')),
  amount_minor   bigint NOT NULL CHECK (amount_minor > 0),
  currency       text NOT NULL,
  provider       text NOT NULL,
  provider_ref   text,
  reason         text NOT NULL DEFAULT '',
  last_error     text NOT NULL DEFAULT '',
  succeeded_at   timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- One refund per payment: only an initiated or succeeded refund blocks another (docs/api.md#create-a-refund).
CREATE UNIQUE INDEX refunds_one_active_per_payment ON refunds (payment_id)
  WHERE status IN ('initiated', 'succeeded');
CREATE UNIQUE INDEX refunds_provider_ref_key ON refunds (provider, provider_ref)
  WHERE provider_ref IS NOT NULL;
CREATE INDEX refunds_created_idx ON refunds (created_at DESC);

-- Transactional outbox: an event row is written in the same transaction as the state change
-- it reports; its body is fixed then, so every retry re-sends the original bytes.
CREATE TABLE outbound_events (
  id           text PRIMARY KEY,
  app_id       text NOT NULL REFERENCES apps (id),
  payment_id   text REFERENCES payments (id),
  refund_id    text REFERENCES refunds (id),
  event_type   text NOT NULL,
  body         text NOT NULL,
  -- Events that must exist once (a subscription canceled twice by the provider).
  dedupe_key   text UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbound_events_payment_idx ON outbound_events (payment_id, created_at DESC);

CREATE TABLE deliveries (
  id                text PRIMARY KEY,
  event_id          text NOT NULL REFERENCES outbound_events (id),
  app_id            text NOT NULL REFERENCES apps (id),
  payment_id        text REFERENCES payments (id),
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
  attempts          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz NOT NULL DEFAULT now(),
  -- Claim lease: a worker that dies mid-delivery loses the claim when it runs out.
  locked_until      timestamptz,
  last_status_code  integer,
  last_error        text,
  delivered_at      timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_payment_idx ON deliveries (payment_id, created_at);
CREATE INDEX deliveries_dead_idx ON deliveries (updated_at DESC) WHERE status = 'dead';

CREATE TABLE delivery_attempts (
  id           bigserial PRIMARY KEY,
  delivery_id  text NOT NULL REFERENCES deliveries (id),
  attempt      integer NOT NULL,
  started_at   timestamptz NOT NULL,
  duration_ms  integer NOT NULL,
  status_code  integer,
  error        text,
  outcome      text NOT NULL CHECK (outcome IN ('delivered', 'retry', 'dead'))
);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, attempt);
