-- Disputes (docs/api.md#disputes, D16): money a provider takes back from a succeeded payment
-- without a refund the gateway asked for. One row per provider case (PayPal's dispute id, the
-- reversed capture, Midtrans' charged-back transaction), so duplicated or reordered provider
-- events always land on the same dispute. A dispute only ever moves open -> won | lost; the
-- CHECK keeps closed_at in step with the status.
CREATE TABLE disputes (
  id               text PRIMARY KEY,
  payment_id       text NOT NULL REFERENCES payments (id),
  app_id           text NOT NULL REFERENCES apps (id),
  provider         text NOT NULL,
  provider_ref     text NOT NULL,
  mode             text NOT NULL CHECK (mode IN ('test', 'sandbox', 'live')),
  status           text NOT NULL CHECK (status IN ('open', 'won', 'lost')),
  amount_minor     bigint NOT NULL CHECK (amount_minor > 0),
  currency         text NOT NULL,
  reason           text NOT NULL DEFAULT '',
  evidence_due_by  timestamptz,
  opened_at        timestamptz NOT NULL DEFAULT now(),
  closed_at        timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, provider_ref),
  CHECK ((status = 'open') = (closed_at IS NULL))
);

CREATE INDEX disputes_newest_idx ON disputes (opened_at DESC, id DESC);
CREATE INDEX disputes_payment_idx ON disputes (payment_id);
-- The refund rule (422 'payment has a dispute') asks for this on every refund.
CREATE INDEX disputes_blocking_idx ON disputes (payment_id) WHERE status IN ('open', 'lost');
