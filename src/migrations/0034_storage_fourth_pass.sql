-- Storage per payment, fourth pass (issue 29; docs/performance.md#storage-per-payment-fourth-pass-deflated-event-bodies-fewer-indexes).
--
-- 1. The outbound event body may be stored deflated (src/db/eventBody.ts). New columns, all
-- nullable without a default, so they are added to the catalog only (no row is rewritten):
--   body_codec  NULL: the body is the text in `body` (every row before this migration);
--               0: its UTF-8 bytes in body_packed; 1: raw deflate with the dictionaries of v1.
--   body_size   the body's length in bytes when body_codec is set (the events feed's page
--               budget, which read octet_length(body) before).
--   body_packed the stored bytes when body_codec is set; `body` is then NULL.
-- Dropping NOT NULL is a catalog change as well.
ALTER TABLE outbound_events ADD COLUMN body_size integer;
ALTER TABLE outbound_events ADD COLUMN body_codec smallint;
ALTER TABLE outbound_events ADD COLUMN body_packed bytea;
ALTER TABLE outbound_events ALTER COLUMN body DROP NOT NULL;
ALTER TABLE outbound_events ADD CONSTRAINT outbound_events_body_stored CHECK (
  (body_codec IS NULL AND body IS NOT NULL)
  OR (body_codec IS NOT NULL AND body_packed IS NOT NULL AND body_size IS NOT NULL)) NOT VALID;

-- 2. One index on the ledger's payment_id instead of two. ledger_one_charge (payment_id) WHERE
-- type = 'charge' and ledger_payment_idx (payment_id) held the same entry for every charge.
-- This one index is both: a charge's key is (payment_id, ''), any other entry's (payment_id,
-- its id), so a second charge of a payment is refused as before (every ledger insert is
-- ON CONFLICT DO NOTHING, with no named target), and the reconciler's lookup of a payment's
-- entries (db/reconciliationStaging.ts) reads it by its first column.
CREATE UNIQUE INDEX ledger_payment_one_charge ON ledger_entries
  (payment_id, (CASE WHEN type = 'charge' THEN '' ELSE id END));
DROP INDEX ledger_one_charge;
DROP INDEX ledger_payment_idx;

-- 3. GET /admin/ledger?type= reads ledger_type_newest_idx for the rare types (migration 0019:
-- a late_charge_refund walked most of ledger_newest_idx). Charges are most of the ledger, so a
-- charge filter fills its page from ledger_newest_idx at once; the index keeps the others.
CREATE INDEX ledger_type_newest_other_idx ON ledger_entries (type, occurred_at DESC, id DESC)
  WHERE type <> 'charge';
DROP INDEX ledger_type_newest_idx;

-- 4. A payment's deliveries (the admin payment detail, db/reportDetail.ts) are found through
-- its events (outbound_events_payment_idx) and each event's deliveries
-- (deliveries_event_idx): a delivery's payment is always its event's.
DROP INDEX deliveries_payment_idx;
