-- Issue 28: the payments trigger that drops a past day's materialized report totals
-- (report_days_invalidate, migration 0003) ran its PL/pgSQL function on every insert and on
-- every finalization, only to find the change was today's and return. A WHEN condition
-- decides that in the executor, before an after-trigger event is even queued: the function
-- runs only for a row whose finalized_at (before or after the change) lies before today
-- (UTC), which is exactly when it deletes something. One trigger per event, because a WHEN
-- may only name the row versions its event has.
DROP TRIGGER payments_report_days ON payments;

CREATE TRIGGER payments_report_days_insert
  AFTER INSERT ON payments FOR EACH ROW
  WHEN (NEW.finalized_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
  EXECUTE FUNCTION report_days_invalidate();

CREATE TRIGGER payments_report_days_update
  AFTER UPDATE OF status, finalized_at, amount_minor, app_id, mode, provider, currency
  ON payments FOR EACH ROW
  WHEN (OLD.finalized_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
     OR NEW.finalized_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
  EXECUTE FUNCTION report_days_invalidate();

CREATE TRIGGER payments_report_days_delete
  AFTER DELETE ON payments FOR EACH ROW
  WHEN (OLD.finalized_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
  EXECUTE FUNCTION report_days_invalidate();

-- The ledger's trigger (migration 0013) in the same way: every success books a charge, and
-- almost every charge is booked today.
DROP TRIGGER ledger_entries_report_days ON ledger_entries;
CREATE TRIGGER ledger_entries_report_days AFTER INSERT ON ledger_entries FOR EACH ROW
  WHEN (NEW.occurred_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
  EXECUTE FUNCTION ledger_report_days_invalidate();
