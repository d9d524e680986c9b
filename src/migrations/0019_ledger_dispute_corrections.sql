-- A dispute's amount follows the provider (a further partial chargeback, a changed case):
-- the difference is booked as one more `dispute` entry of the same dispute (a correction,
-- never an edit), so a dispute may now have several. services/disputes.ts books only what
-- the ledger does not hold yet, under the payment's lock; giving the money back stays once.
DROP INDEX ledger_one_per_dispute_step;
CREATE UNIQUE INDEX ledger_one_dispute_reversal ON ledger_entries (dispute_id)
  WHERE type = 'dispute_reversal';
CREATE INDEX ledger_dispute_idx ON ledger_entries (dispute_id) WHERE dispute_id IS NOT NULL;
