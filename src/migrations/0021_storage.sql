-- Storage (issue 29): the payments table's indexes (docs/performance.md#payment-indexes) and the
-- index of the simulators' objects' retention.
--
-- The admin search's amount_min/amount_max filters: without an index a filter that matches
-- few payments reads the whole table (80 ms at 300,000 payments, growing with the table).
-- With it PostgreSQL reads only the matching amounts and sorts those; a wide range that
-- matches many payments is still served newest first by payments_created_id_idx.
-- amount_minor never changes after the insert, so this index costs no HOT update.
CREATE INDEX IF NOT EXISTS payments_amount_idx ON payments (amount_minor);

-- Each new index is built while this migration holds payments' write lock (about 1 s for
-- all three at 300,000 payments). On a large table, build them first with
-- CREATE INDEX CONCURRENTLY and the same definitions: IF NOT EXISTS then skips them
-- (docs/performance.md#payment-indexes).

-- What each index of payments serves (docs/performance.md#payment-indexes): an index costs
-- bytes per payment, work on every insert, and it makes an update of its columns non-HOT
-- (a HOT update writes no index entry; it needs no indexed column, nor a column of an
-- index's WHERE, to change).

-- The admin status filter: succeeded is the common status, and a page of it is the first
-- 50 succeeded rows of payments_created_id_idx. The other statuses can be rare (a healthy
-- shop fails few payments), so they keep their index, without the succeeded rows (most
-- of the table).
CREATE INDEX IF NOT EXISTS payments_unsucceeded_created_id_idx
  ON payments (status, created_at DESC, id DESC) WHERE status <> 'succeeded';
DROP INDEX IF EXISTS payments_status_created_id_idx;

-- A search term never matches a missing email: payments created without one need no entry.
CREATE INDEX IF NOT EXISTS payments_email_given_created_idx
  ON payments (email, created_at DESC, id DESC) WHERE email IS NOT NULL;
DROP INDEX IF EXISTS payments_email_created_idx;

-- The retention job's purge of the simulators' objects (docs/operations.md#retention),
-- oldest first. created_at never changes, so the objects' own updates stay HOT.
CREATE INDEX IF NOT EXISTS sim_objects_created_idx ON sim_objects (created_at);
