-- Reconciliation per currency, and disputes compared (docs/api.md#reconciliation).
--
-- 1. A provider's day can hold several currencies (PayPal, Polar): a run's sums are kept
--    per currency, never added across them. Runs stored before this migration kept one sum
--    of every currency; an idr_psp run only ever had IDR, so its figures carry over. The old
--    columns are no longer written (null from now on); a wallet_psp or card_psp day run
--    before it shows its per-currency figures once it is run again.
CREATE TABLE reconciliation_run_totals (
  run_id              text NOT NULL REFERENCES reconciliation_runs (id),
  currency            text NOT NULL,
  gateway_net_minor   numeric NOT NULL,
  provider_net_minor  numeric NOT NULL,
  fees_minor          numeric NOT NULL,
  PRIMARY KEY (run_id, currency)
);
INSERT INTO reconciliation_run_totals (run_id, currency, gateway_net_minor, provider_net_minor,
    fees_minor)
  SELECT id, 'IDR', gateway_net_minor, provider_net_minor, fees_minor
  FROM reconciliation_runs WHERE provider = 'idr_psp';
ALTER TABLE reconciliation_runs ALTER COLUMN gateway_net_minor DROP NOT NULL,
  ALTER COLUMN provider_net_minor DROP NOT NULL,
  ALTER COLUMN fees_minor DROP NOT NULL;

-- 2. Money a provider took back (a chargeback, a reversal) and gave back (a dispute won) is
--    compared too: the ledger's dispute and dispute_reversal entries against the provider's
--    own records of them, as movements of kind dispute.
ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_movement_check,
  ADD CONSTRAINT reconciliation_items_movement_check
    CHECK (movement IN ('charge', 'refund', 'dispute'));
ALTER TABLE reconciliation_import_rows DROP CONSTRAINT reconciliation_import_rows_type_check,
  ADD CONSTRAINT reconciliation_import_rows_type_check
    CHECK (type IN ('charge', 'refund', 'dispute'));
