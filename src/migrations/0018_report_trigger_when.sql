-- Issue 28: every succeeded payment books a ledger charge, and the charge's row trigger
-- (ledger_report_days_invalidate, migration 0013) ran its PL/pgSQL function each time only
-- to find the entry was booked today and return. A WHEN condition decides that in the
-- executor, before an after-trigger event is even queued: the function runs only for an
-- entry booked before today (UTC), exactly the case in which it drops a day's totals.
--
-- The payments trigger is left as it is: migration 0019 replaces it (and its function,
-- which also looks at created_at for initiated payments), so a WHEN on it belongs after
-- 0019.
DROP TRIGGER ledger_entries_report_days ON ledger_entries;
CREATE TRIGGER ledger_entries_report_days AFTER INSERT ON ledger_entries FOR EACH ROW
  WHEN (NEW.occurred_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
  EXECUTE FUNCTION ledger_report_days_invalidate();
