-- The ledger (docs/api.md#ledger): one immutable row per movement of money, written in the
-- transaction of the change it records. amount_minor is signed: money in positive, money
-- out negative; fee_minor is the provider's fee where it reports one. Each movement is
-- recorded once: the partial unique indexes make a repeated write a no-op (ON CONFLICT DO
-- NOTHING), so a redelivered provider event never books the same money twice.
CREATE TABLE ledger_entries (
  id            text PRIMARY KEY,
  type          text NOT NULL CHECK (type IN ('charge', 'refund', 'dispute', 'dispute_reversal',
                                              'late_charge', 'late_charge_refund')),
  payment_id    text NOT NULL REFERENCES payments (id),
  refund_id     text REFERENCES refunds (id),
  dispute_id    text,
  exception_id  text REFERENCES payment_exceptions (id),
  app_id        text NOT NULL REFERENCES apps (id),
  provider      text NOT NULL,
  mode          text NOT NULL CHECK (mode IN ('test', 'sandbox', 'live')),
  currency      text NOT NULL,
  amount_minor  bigint NOT NULL,
  fee_minor     bigint,
  occurred_at   timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX ledger_one_charge ON ledger_entries (payment_id) WHERE type = 'charge';
CREATE UNIQUE INDEX ledger_one_per_refund ON ledger_entries (refund_id)
  WHERE type IN ('refund', 'late_charge_refund');
CREATE UNIQUE INDEX ledger_one_late_charge ON ledger_entries (exception_id)
  WHERE type = 'late_charge';
CREATE UNIQUE INDEX ledger_one_per_dispute_step ON ledger_entries (dispute_id, type)
  WHERE type IN ('dispute', 'dispute_reversal');
CREATE INDEX ledger_newest_idx ON ledger_entries (occurred_at DESC, id DESC);
CREATE INDEX ledger_payment_idx ON ledger_entries (payment_id);

-- Immutable: a correction is a new entry, never an edit.
CREATE FUNCTION ledger_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are immutable' USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER ledger_entries_no_change BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_immutable();
