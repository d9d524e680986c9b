-- Issue 28: a WHEN on the payments report trigger (migration 0018 did the ledger's; it left
-- this one for after 0019, which replaced the trigger and its function).
--
-- report_days_invalidate() drops a past day of the rollup when a payment row changes with a
-- time in a past day (UTC): its finalized_at, or its created_at while it is (or was)
-- initiated. The gateway's own writes are stamped now(), so for them the function ran only
-- to find nothing to do: a PL/pgSQL call and a queued after-trigger event on every
-- registration and finalization. A WHEN condition is checked in the executor before the
-- event is queued; it holds exactly when the function would drop a day (the function still
-- checks each time itself). A trigger's WHEN cannot see OLD on INSERT nor NEW on DELETE, so
-- the trigger becomes three, one per operation; DELETE (an operator's SQL) keeps no WHEN.
DROP TRIGGER payments_report_days ON payments;

CREATE TRIGGER payments_report_days_insert AFTER INSERT ON payments FOR EACH ROW
  WHEN (NEW.finalized_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        OR (NEW.status = 'initiated'
            AND NEW.created_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'))
  EXECUTE FUNCTION report_days_invalidate();

CREATE TRIGGER payments_report_days_update
  AFTER UPDATE OF status, finalized_at, created_at, amount_minor, app_id, mode, provider, currency
  ON payments FOR EACH ROW
  WHEN (OLD.finalized_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        OR NEW.finalized_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        OR (OLD.status = 'initiated'
            AND OLD.created_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
        OR (NEW.status = 'initiated'
            AND NEW.created_at < date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'))
  EXECUTE FUNCTION report_days_invalidate();

CREATE TRIGGER payments_report_days_delete AFTER DELETE ON payments FOR EACH ROW
  EXECUTE FUNCTION report_days_invalidate();
