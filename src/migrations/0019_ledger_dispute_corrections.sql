-- A dispute's amount follows the provider (a further partial chargeback, a changed case):
-- the difference is booked as one more `dispute` entry of the same dispute (a correction,
-- never an edit), so a dispute may now have several. services/disputes.ts books only what
-- the ledger does not hold yet, under the payment's lock; giving the money back stays once.
DROP INDEX ledger_one_per_dispute_step;
CREATE UNIQUE INDEX ledger_one_dispute_reversal ON ledger_entries (dispute_id)
  WHERE type = 'dispute_reversal';
CREATE INDEX ledger_dispute_idx ON ledger_entries (dispute_id) WHERE dispute_id IS NOT NULL;
-- GET /admin/ledger?type= newest first: a rare type (late_charge_refund, dispute_reversal)
-- otherwise walks most of ledger_newest_idx to fill a page (700 ms at a million entries).
CREATE INDEX ledger_type_newest_idx ON ledger_entries (type, occurred_at DESC, id DESC);

-- The reports at a million payments (docs/performance.md, "The ledger"): a year's summary
-- summed 366 days of report_daily rows and counted every initiated payment of the year from
-- the rows. Two more rollups:
--
-- 1. Initiated payments per created day join the daily rollup. A payment leaving (or, by an
--    operator's SQL, entering) initiated drops its created day, so a closed day's count stays
--    exact; the gateway's own payments are created today and return from the trigger at once.
-- 2. report_monthly: the sums of a month whose every day is materialized, built from
--    report_daily on first use. Dropping a day drops its month.
--
-- A day is dropped under a shared advisory lock on the materializer's key, taken only when a
-- past day changes: a change committing while the day is being materialized waits for it and
-- then drops what it computed, never leaving a stale day behind.
ALTER TABLE report_daily ADD COLUMN initiated_count bigint NOT NULL DEFAULT 0;

CREATE TABLE report_months (
  month        date PRIMARY KEY CHECK (extract(day FROM month) = 1),
  computed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE report_monthly (
  month            date NOT NULL REFERENCES report_months (month) ON DELETE CASCADE,
  app_id           text NOT NULL,
  mode             text NOT NULL,
  provider         text NOT NULL,
  currency         text NOT NULL,
  succeeded_count  bigint NOT NULL,
  succeeded_minor  numeric NOT NULL,
  refunded_count   bigint NOT NULL,
  refunded_minor   numeric NOT NULL,
  failed_count     bigint NOT NULL,
  canceled_count   bigint NOT NULL,
  initiated_count  bigint NOT NULL,
  ledger_count     bigint NOT NULL,
  net_minor        numeric NOT NULL,
  disputed_minor   numeric NOT NULL,
  PRIMARY KEY (month, app_id, mode, provider, currency)
);

CREATE FUNCTION report_months_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM report_months WHERE month = date_trunc('month', OLD.day)::date;
  RETURN NULL;
END
$$;
CREATE TRIGGER report_days_months AFTER DELETE ON report_days
  FOR EACH ROW EXECUTE FUNCTION report_months_invalidate();

-- Drops a past day of the rollup (services/rollup.ts); today and later are never materialized.
CREATE FUNCTION report_day_drop(at timestamptz) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF at IS NOT NULL AND (at AT TIME ZONE 'UTC')::date < (clock_timestamp() AT TIME ZONE 'UTC')::date THEN
    -- src/db/rollup.ts MATERIALIZE_LOCK.
    PERFORM pg_advisory_xact_lock_shared(727274003);
    DELETE FROM report_days WHERE day = (at AT TIME ZONE 'UTC')::date;
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION report_days_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'payments' THEN
    IF TG_OP <> 'INSERT' THEN
      PERFORM report_day_drop(OLD.finalized_at);
      IF OLD.status = 'initiated' THEN PERFORM report_day_drop(OLD.created_at); END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
      PERFORM report_day_drop(NEW.finalized_at);
      IF NEW.status = 'initiated' THEN PERFORM report_day_drop(NEW.created_at); END IF;
    END IF;
  ELSE
    IF TG_OP <> 'INSERT' THEN PERFORM report_day_drop(OLD.succeeded_at); END IF;
    IF TG_OP <> 'DELETE' THEN PERFORM report_day_drop(NEW.succeeded_at); END IF;
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER payments_report_days ON payments;
CREATE TRIGGER payments_report_days
  AFTER INSERT OR DELETE
    OR UPDATE OF status, finalized_at, created_at, amount_minor, app_id, mode, provider, currency
  ON payments FOR EACH ROW EXECUTE FUNCTION report_days_invalidate();

CREATE OR REPLACE FUNCTION ledger_report_days_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM report_day_drop(NEW.occurred_at);
  RETURN NULL;
END
$$;

-- Every day is computed again with its initiated count on first use.
DELETE FROM report_days;
