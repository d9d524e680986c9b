-- Money a provider moved that the payment's state cannot show (docs/api.md#exceptions): a
-- charge reported on a canceled or failed payment, a renewal charge of a subscription whose
-- first payment did not succeed. One row per (payment, kind, provider reference), so a
-- redelivered provider event never records the same money twice.
CREATE TABLE payment_exceptions (
  id            text PRIMARY KEY,
  payment_id    text NOT NULL REFERENCES payments (id),
  app_id        text NOT NULL REFERENCES apps (id),
  kind          text NOT NULL
                CHECK (kind IN ('paid_after_cancel', 'paid_after_failure', 'unrequested_refund')),
  provider      text NOT NULL,
  provider_ref  text NOT NULL,
  amount_minor  bigint NOT NULL,
  currency      text NOT NULL,
  detected_at   timestamptz NOT NULL DEFAULT now(),
  resolution    text NOT NULL CHECK (resolution IN ('manual', 'refunded', 'resolved')),
  note          text,
  resolved_at   timestamptz,
  UNIQUE (payment_id, kind, provider_ref)
);

CREATE INDEX payment_exceptions_newest_idx ON payment_exceptions (detected_at DESC, id DESC);
