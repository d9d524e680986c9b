-- Operator reads (issue 5) at a million payments. Summary and timeseries count a payment
-- on the time it reached its terminal state and a refund on the time it succeeded (docs/api.md#summary);
-- the report indexes carry every column those aggregates read, so they are answered by
-- index-only scans over the window and never touch the table.
CREATE INDEX payments_finalized_report_idx ON payments (finalized_at)
  INCLUDE (status, mode, app_id, provider, currency, amount_minor)
  WHERE finalized_at IS NOT NULL;
-- initiated_count (by created_at).
CREATE INDEX payments_initiated_created_idx ON payments (created_at)
  INCLUDE (mode, app_id, provider, currency)
  WHERE status = 'initiated';

-- Admin lists: newest first with an (created_at, id) keyset cursor, with and without the
-- mode or status filter.
CREATE INDEX payments_created_id_idx ON payments (created_at DESC, id DESC);
CREATE INDEX payments_mode_created_id_idx ON payments (mode, created_at DESC, id DESC);
CREATE INDEX payments_status_created_id_idx ON payments (status, created_at DESC, id DESC);

CREATE INDEX refunds_succeeded_report_idx ON refunds (succeeded_at)
  INCLUDE (mode, app_id, provider, currency, amount_minor)
  WHERE status = 'succeeded';
CREATE INDEX refunds_created_id_idx ON refunds (created_at DESC, id DESC);
CREATE INDEX refunds_mode_created_id_idx ON refunds (mode, created_at DESC, id DESC);
-- Superseded by refunds_created_id_idx.
DROP INDEX refunds_created_idx;
-- A payment's refund status in lists and detail (the unique index covers active ones only).
CREATE INDEX refunds_payment_created_idx ON refunds (payment_id, created_at DESC);
-- Payment detail: its deliveries' events (outbound_events_payment_idx) and attempts
-- (delivery_attempts_delivery_idx) are indexed already.

-- Daily totals of closed UTC days, materialized by the first read that needs them (see
-- src/services/rollup.ts). A day's figures never change once it is over: finalized_at and
-- succeeded_at are set once, to the time of the transaction that sets them. A day counts as
-- closed one hour after it ends, so a transaction that began before midnight has committed.
-- report_days lists the materialized days; deleting a day's row drops its totals, and the
-- next read computes them again.
CREATE TABLE report_days (
  day          date PRIMARY KEY,
  computed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE report_daily (
  day              date NOT NULL REFERENCES report_days (day) ON DELETE CASCADE,
  app_id           text NOT NULL,
  mode             text NOT NULL,
  provider         text NOT NULL,
  currency         text NOT NULL,
  succeeded_count  bigint NOT NULL,
  succeeded_minor  bigint NOT NULL,
  refunded_count   bigint NOT NULL,
  refunded_minor   bigint NOT NULL,
  failed_count     bigint NOT NULL,
  canceled_count   bigint NOT NULL,
  PRIMARY KEY (day, app_id, mode, provider, currency)
);

-- A change that lands in a past day (rows written with explicit past times by an operator's
-- SQL or an import; never the gateway's own writes, which are stamped now()) drops that day's
-- totals. The gateway's finalizations find today and return at once: no lock, no write.
CREATE FUNCTION report_days_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  today date := (clock_timestamp() AT TIME ZONE 'UTC')::date;
  old_at timestamptz;
  new_at timestamptz;
BEGIN
  IF TG_TABLE_NAME = 'payments' THEN
    IF TG_OP <> 'INSERT' THEN old_at := OLD.finalized_at; END IF;
    IF TG_OP <> 'DELETE' THEN new_at := NEW.finalized_at; END IF;
  ELSE
    IF TG_OP <> 'INSERT' THEN old_at := OLD.succeeded_at; END IF;
    IF TG_OP <> 'DELETE' THEN new_at := NEW.succeeded_at; END IF;
  END IF;
  IF old_at IS NOT NULL AND (old_at AT TIME ZONE 'UTC')::date < today THEN
    DELETE FROM report_days WHERE day = (old_at AT TIME ZONE 'UTC')::date;
  END IF;
  IF new_at IS NOT NULL AND (new_at AT TIME ZONE 'UTC')::date < today THEN
    DELETE FROM report_days WHERE day = (new_at AT TIME ZONE 'UTC')::date;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER payments_report_days
  AFTER INSERT OR DELETE OR UPDATE OF status, finalized_at, amount_minor, app_id, mode, provider, currency
  ON payments FOR EACH ROW EXECUTE FUNCTION report_days_invalidate();
CREATE TRIGGER refunds_report_days
  AFTER INSERT OR DELETE OR UPDATE OF status, succeeded_at, amount_minor, app_id, mode, provider, currency
  ON refunds FOR EACH ROW EXECUTE FUNCTION report_days_invalidate();
