-- The ledger becomes the source of the reports (docs/api.md#ledger, #summary): the money
-- already on record is booked with its original times, the reports read the ledger through
-- a covering index and the daily rollup carries its sums.
--
-- Entry ids of the backfill are md5 of the movement they book: 32 hex characters like
-- newId(), and the same on any copy of the database.

-- ledger_backfill() books every movement already on record and not yet in the ledger, and
-- answers how many entries it booked. Run once here; test and benchmark seeds that write
-- payments, refunds and exceptions with SQL (bypassing the gateway) call it to book theirs.
CREATE FUNCTION ledger_backfill() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint := 0;
  k bigint;
BEGIN
  -- Every succeeded payment (renewals included) took its amount when it was finalized.
  INSERT INTO ledger_entries (id, type, payment_id, app_id, provider, mode, currency,
    amount_minor, occurred_at)
  SELECT md5('charge:' || p.id), 'charge', p.id, p.app_id, p.provider, p.mode, p.currency,
    p.amount_minor, COALESCE(p.finalized_at, p.updated_at)
  FROM payments p WHERE p.status = 'succeeded'
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS k = ROW_COUNT;
  n := n + k;

  -- What a provider took on a payment that never succeeded (D13): the exceptions with money in.
  INSERT INTO ledger_entries (id, type, payment_id, exception_id, app_id, provider, mode,
    currency, amount_minor, occurred_at)
  SELECT md5('late_charge:' || e.id), 'late_charge', e.payment_id, e.id, e.app_id, e.provider,
    p.mode, e.currency, e.amount_minor, e.detected_at
  FROM payment_exceptions e JOIN payments p ON p.id = e.payment_id
  WHERE e.kind IN ('paid_after_cancel', 'paid_after_failure', 'amount_mismatch')
    AND e.amount_minor > 0
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS k = ROW_COUNT;
  n := n + k;

  -- Every succeeded refund, money out. A refund of a payment that never succeeded gives back
  -- a late charge (linked to the oldest one of the payment) or money the gateway never asked
  -- to take: late_charge_refund either way, so the refund of a late charge nets to zero.
  INSERT INTO ledger_entries (id, type, payment_id, refund_id, exception_id, app_id, provider,
    mode, currency, amount_minor, occurred_at)
  SELECT md5('refund:' || r.id),
    CASE WHEN p.status = 'succeeded' THEN 'refund' ELSE 'late_charge_refund' END,
    r.payment_id, r.id,
    CASE WHEN p.status <> 'succeeded' THEN
      (SELECT e.id FROM payment_exceptions e
       WHERE e.payment_id = r.payment_id
         AND e.kind IN ('paid_after_cancel', 'paid_after_failure', 'amount_mismatch')
       ORDER BY e.detected_at, e.id LIMIT 1) END,
    r.app_id, r.provider, r.mode, r.currency, -r.amount_minor,
    COALESCE(r.succeeded_at, r.updated_at)
  FROM refunds r JOIN payments p ON p.id = r.payment_id
  WHERE r.status = 'succeeded'
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS k = ROW_COUNT;
  n := n + k;
  RETURN n;
END
$$;
SELECT ledger_backfill();

-- The reports' aggregates over a window: an index-only scan, as payments_finalized_report_idx
-- serves the payment figures (migration 0003).
CREATE INDEX ledger_report_idx ON ledger_entries (occurred_at)
  INCLUDE (type, mode, app_id, provider, currency, amount_minor);
-- GET /admin/ledger filtered by app, provider or type, newest first.
CREATE INDEX ledger_app_newest_idx ON ledger_entries (app_id, occurred_at DESC, id DESC);

-- The daily rollup carries the ledger's sums; the days computed before this migration lack
-- them, so they are dropped and computed again on first use.
ALTER TABLE report_daily ADD COLUMN ledger_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN net_minor numeric NOT NULL DEFAULT 0,
  ADD COLUMN disputed_minor numeric NOT NULL DEFAULT 0;
DELETE FROM report_days;

-- An entry booked into a past day (a provider's own time of a dispute, an import) drops that
-- day's totals, as a late change of a payment or refund does (migration 0003). Entries the
-- gateway books now() find today and return at once.
CREATE FUNCTION ledger_report_days_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.occurred_at AT TIME ZONE 'UTC')::date < (clock_timestamp() AT TIME ZONE 'UTC')::date THEN
    DELETE FROM report_days WHERE day = (NEW.occurred_at AT TIME ZONE 'UTC')::date;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER ledger_entries_report_days AFTER INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_report_days_invalidate();
