-- Operators (issue 15): events feed for apps, bulk redelivery, payment search, stuck work,
-- audit log.

-- GET /v1/events lists an app's events in commit order. Creation time and random ids do not
-- give it: a transaction that began earlier can commit later, behind a cursor that already
-- moved past it. The inserting transaction's id does, read only below the oldest transaction
-- still running (docs/api.md, "Events"). Rows from before this migration read as 0 and keep
-- their creation order among themselves; the constant default adds the column without a
-- table rewrite, the volatile one applies to rows inserted from now on.
ALTER TABLE outbound_events ADD COLUMN txid xid8 NOT NULL DEFAULT '0';
ALTER TABLE outbound_events ALTER COLUMN txid SET DEFAULT pg_current_xact_id();
CREATE INDEX outbound_events_app_position_idx ON outbound_events (app_id, txid, created_at, id);
-- Bulk redelivery picks an app's events by time.
CREATE INDEX outbound_events_app_created_idx ON outbound_events (app_id, created_at);
-- An event's latest delivery (events feed) and whether any was delivered (redelivery).
CREATE INDEX deliveries_event_idx ON deliveries (event_id, created_at DESC);

-- Payment search: each way of matching q is one index that yields the newest first, so the
-- first page never sorts more than one page per branch. The id prefix uses the primary key
-- and provider_ref the (provider, provider_ref) unique index.
CREATE INDEX payments_external_user_created_idx ON payments (external_user_id, created_at DESC, id DESC);
CREATE INDEX payments_email_created_idx ON payments (email, created_at DESC, id DESC);
CREATE INDEX payments_invoice_number_idx ON payments (invoice_number) WHERE invoice_number IS NOT NULL;
-- The app filter pages by (created_at, id) like the other list indexes of 0003.
CREATE INDEX payments_app_created_id_idx ON payments (app_id, created_at DESC, id DESC);
DROP INDEX payments_app_created_idx;

-- Stuck work: what the reconciler (or an operator's sync) last asked the provider, what it
-- learned, and when.
ALTER TABLE payments ADD COLUMN last_check_at timestamptz;
ALTER TABLE payments ADD COLUMN last_check_asked text;
ALTER TABLE payments ADD COLUMN last_check_learned text;
ALTER TABLE refunds ADD COLUMN last_check_at timestamptz;
ALTER TABLE refunds ADD COLUMN last_check_asked text;
ALTER TABLE refunds ADD COLUMN last_check_learned text;
-- The reconciler's claim moves provider_deadline forward, so a payment it has already asked
-- about is found by its check instead (payments_initiated_deadline_idx covers the rest).
CREATE INDEX payments_checked_initiated_idx ON payments (created_at)
  WHERE status = 'initiated' AND last_check_at IS NOT NULL;
CREATE INDEX refunds_initiated_created_idx ON refunds (created_at) WHERE status = 'initiated';

-- Every admin request that changes something, written in the transaction of its change.
CREATE TABLE audit_log (
  id           bigserial PRIMARY KEY,
  at           timestamptz NOT NULL DEFAULT now(),
  action       text NOT NULL,
  target_type  text NOT NULL,
  target_id    text NOT NULL,
  outcome      text NOT NULL,
  request_id   text NOT NULL,
  source_ip    text NOT NULL,
  details      jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_action_idx ON audit_log (action, id DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_id, id DESC);

-- Append only: no code path updates or deletes an entry, and the database refuses it too.
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END
$$;
CREATE TRIGGER audit_log_append_only
  BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
