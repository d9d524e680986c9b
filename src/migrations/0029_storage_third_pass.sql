-- Storage per payment, third pass (issue 29; docs/performance.md#storage-per-payment-third-pass).
--
-- 1. fillfactor 100 on payments and deliveries. Migration 0020 left 15 % and 30 % of every
-- page empty so that an update could be HOT (the new version beside the old one, no new
-- index entries). None of their updates is: every update of a payment (registration,
-- finalization, the reconciler's check) and of a delivery (claim, finish) changes a column
-- that an index holds or that a partial index's WHERE names, so PostgreSQL writes new index
-- entries whatever the free space; the storage bench counted 0 HOT updates of 9,000 payment
-- updates and of 8,000 delivery updates. The reserve was only empty space. It applies to
-- pages written from now on (existing pages keep their layout until rewritten); changing it
-- takes a SHARE UPDATE EXCLUSIVE lock, which reads and writes do not wait for.
ALTER TABLE payments SET (fillfactor = 100);
ALTER TABLE deliveries SET (fillfactor = 100);

-- 2. The archived webhook body may be stored deflated against its provider's dictionary
-- (src/db/inboundBody.ts): NULL is the body as received (every row before this migration),
-- 1 raw deflate with the dictionaries of version 1. A nullable column without a default is
-- added to the catalog only: no partition is rewritten.
ALTER TABLE inbound_events ADD COLUMN body_codec smallint;
