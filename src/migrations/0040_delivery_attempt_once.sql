-- A delivery attempt is listed once in its history (docs/operations.md, "A late record, and
-- an attempt written twice").
--
-- When the statement that records a batch of attempts commits but the gateway sees an error,
-- the batch is written again one attempt at a time. A late attempt's rewrite checked for a
-- history row of its number as of its statement's start, so a rewrite that ran while the
-- first write was still committing listed the attempt twice. The history now has a unique
-- key per attempt, and the recorder's insert does nothing on a conflict with it
-- (src/db/deliveries.ts): the rewrite carries the attempt's own started_at (measured once by
-- the worker), and its insert waits for a first write still in progress, then skips its row.
--
-- The key is (delivery_id, attempt, started_at): a partitioned table's unique keys must hold
-- its partition key (started_at). It replaces delivery_attempts_delivery_idx (delivery_id),
-- whose lookups (a delivery's attempts, an endpoint's attempts through its deliveries) it
-- serves by its first column.
--
-- On a large table, build the new index on each partition first, without blocking writes,
-- after removing the rows listed twice (docs/operations.md, "Upgrading a large database to
-- 0040"): this migration then finds those indexes, attaches them, and only scans the
-- partitions without one. A concurrent build that failed leaves its index invalid: the
-- migration then stops, dropping nothing.

-- No attempt is written meanwhile (the index build below takes this lock anyway), so no row
-- listed twice can come between the clean-up and the unique index.
LOCK TABLE delivery_attempts IN SHARE MODE;

-- An index of the key left invalid by a concurrent build that failed (rows listed twice, a
-- deadlock, a cancel): stop before anything is done.
DO $$
DECLARE
  invalid text;
BEGIN
  SELECT string_agg(i.indexrelid::regclass::text, ', ') INTO invalid
  FROM pg_partition_tree('delivery_attempts') t JOIN pg_index i ON i.indrelid = t.relid
  WHERE NOT i.indisvalid
    AND pg_get_indexdef(i.indexrelid) LIKE '% USING btree (delivery_id, attempt, started_at)';
  IF invalid IS NOT NULL THEN
    RAISE EXCEPTION 'index % is invalid (a CREATE UNIQUE INDEX CONCURRENTLY that failed): drop it and build it again (docs/operations.md, "Upgrading a large database to 0040")', invalid;
  END IF;
END $$;

-- 1. Rows listed twice, of every partition without a valid unique index on the key (with one,
-- it holds none): the first written (lowest id) is kept. A row and its copy share started_at,
-- so they are in the same partition.
DO $$
DECLARE
  part regclass;
BEGIN
  FOR part IN
    SELECT t.relid FROM pg_partition_tree('delivery_attempts') t
    WHERE t.isleaf AND NOT EXISTS (
      SELECT 1 FROM pg_index i
      WHERE i.indrelid = t.relid AND i.indisunique AND i.indisvalid AND i.indpred IS NULL
        AND pg_get_indexdef(i.indexrelid) LIKE '% USING btree (delivery_id, attempt, started_at)')
  LOOP
    EXECUTE format(
      'DELETE FROM %s a USING %s b
       WHERE b.delivery_id = a.delivery_id AND b.attempt = a.attempt
         AND b.started_at = a.started_at AND b.id < a.id', part, part);
  END LOOP;
END $$;

-- 2. The unique key. A partition's matching index built beforehand is attached as it is.
CREATE UNIQUE INDEX IF NOT EXISTS delivery_attempts_delivery_attempt_idx
  ON delivery_attempts (delivery_id, attempt, started_at);

-- Valid (the check above found no invalid index of the key to attach): the recorder's
-- ON CONFLICT names it, and an invalid index is no arbiter.
DO $$
BEGIN
  IF NOT (SELECT indisvalid FROM pg_index
          WHERE indexrelid = 'delivery_attempts_delivery_attempt_idx'::regclass) THEN
    RAISE EXCEPTION 'index delivery_attempts_delivery_attempt_idx is invalid';
  END IF;
END $$;

-- 3. The index it replaces.
DROP INDEX IF EXISTS delivery_attempts_delivery_idx;
