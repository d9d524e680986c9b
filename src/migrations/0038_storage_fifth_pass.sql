-- Storage per payment, fifth pass (issue 29; docs/performance.md#storage-per-payment-fifth-pass).
--
-- 1. One ledger index by time instead of two. ledger_newest_idx (occurred_at DESC, id DESC)
-- served the admin ledger list (newest first, paged by (occurred_at, id)); ledger_report_idx
-- (occurred_at) INCLUDE (...) served the reports, the daily rollup and the export without
-- the table. This one index has both keys and the included columns: the list reads it
-- forwards, the reports' range and the export's ORDER BY occurred_at, id backwards, still
-- index-only. The list's filters by app and by a rare type keep their own indexes.
CREATE INDEX ledger_time_idx ON ledger_entries (occurred_at DESC, id DESC)
  INCLUDE (type, mode, app_id, provider, currency, amount_minor);
DROP INDEX ledger_newest_idx;
DROP INDEX ledger_report_idx;

-- 2. The event dedupe key is unique among the events that have one (most have none, and a
-- NULL key never conflicted): a partial unique index instead of the UNIQUE constraint. The
-- outbox writer's ON CONFLICT names the same predicate (src/db/outbox.ts).
CREATE UNIQUE INDEX outbound_events_dedupe_key_idx ON outbound_events (dedupe_key)
  WHERE dedupe_key IS NOT NULL;
ALTER TABLE outbound_events DROP CONSTRAINT outbound_events_dedupe_key_key;

-- 3. The archived inbound body's SHA-256 as its 32 bytes (body_digest) instead of 64 hex
-- characters (body_sha256, migration 0029). A nullable column without a default is added to
-- the catalog only; rows archived before keep body_sha256 and are read as before
-- (db/inbound.ts listInbound reads whichever is set).
ALTER TABLE inbound_events ADD COLUMN body_digest bytea;

-- 4. Indexes looked up by a payment or an event, whose second key column only ordered the
-- handful of rows one payment or event has: the key alone (8 bytes less per entry). Their
-- readers (a payment's inbound events and events, an event's deliveries, a delivery's
-- attempts) sort those rows.
DROP INDEX inbound_events_payment_idx;
CREATE INDEX inbound_events_payment_idx ON inbound_events (payment_id) WHERE payment_id IS NOT NULL;
DROP INDEX outbound_events_payment_idx;
CREATE INDEX outbound_events_payment_idx ON outbound_events (payment_id);
DROP INDEX deliveries_event_idx;
CREATE INDEX deliveries_event_idx ON deliveries (event_id);
DROP INDEX delivery_attempts_delivery_idx;
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id);

-- 5. A delivery's payment is its event's (outbound_events.payment_id): deliveries written from
-- now on leave deliveries.payment_id NULL (no query of the gateway reads it since 0034; the
-- admin delivery list answers the event's). Rows written before keep theirs.
COMMENT ON COLUMN deliveries.payment_id IS
  'Written until migration 0038 only; a delivery''s payment is outbound_events.payment_id of its event_id';

ANALYZE ledger_entries;
