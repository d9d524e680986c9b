-- What a provider took differs from the payment (docs/api.md#exceptions): the payment is
-- failed and the money the provider took is on record as an amount_mismatch exception.
ALTER TABLE payment_exceptions DROP CONSTRAINT payment_exceptions_kind_check;
ALTER TABLE payment_exceptions ADD CONSTRAINT payment_exceptions_kind_check
  CHECK (kind IN ('paid_after_cancel', 'paid_after_failure', 'unrequested_refund',
                  'amount_mismatch'));

-- A refund the provider reports beyond the payment's one refund (a second refund made in the
-- provider's dashboard) is recorded too: it is `additional`, outside the one-refund rule that
-- POST /v1/refunds keeps.
ALTER TABLE refunds ADD COLUMN additional boolean NOT NULL DEFAULT false;
DROP INDEX refunds_one_active_per_payment;
CREATE UNIQUE INDEX refunds_one_active_per_payment ON refunds (payment_id)
  WHERE status IN ('initiated', 'succeeded') AND NOT additional;

-- Provider deliveries seen, by the provider's own transmission id: a replayed transmission
-- with another body is refused (docs/providers/wallet_psp.md). Purged past the age limit.
CREATE TABLE provider_transmissions (
  provider         text NOT NULL,
  transmission_id  text NOT NULL,
  body_sha256      bytea NOT NULL,
  received_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, transmission_id)
);
CREATE INDEX provider_transmissions_received_idx ON provider_transmissions (received_at);
