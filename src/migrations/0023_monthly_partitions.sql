-- Storage (issue 29): the append-only history partitioned by month (native partitioning), so
-- that an old month can be detached, dumped and dropped without deleting its rows one by one
-- (docs/operations.md#archiving-old-months).
--
-- Partitioned: inbound_events (by received_at), delivery_attempts (by started_at) and
-- audit_log (by at). Each only grows; inbound_events' one update (the outcome, the full body)
-- comes seconds after its insert and never moves the row to another month.
--
-- Not partitioned, because a partitioned table's unique keys must include its partition key
-- and these tables' uniqueness is what makes a repeated write a no-op:
-- - ledger_entries: ledger_one_charge (payment_id) and the other partial unique indexes book
--   each movement once whenever a redelivered event arrives; (payment_id, occurred_at) would
--   not. The ledger is also the books: balances and reports sum all of it.
-- - outbound_events: dedupe_key is unique for all time, and deliveries reference its id.
-- - provider_transmissions: its key (provider, transmission_id) is the replay check; it is
--   purged by age already (the retention job).
--
-- The conversion copies the rows into the new partitioned table while this migration holds
-- the tables' ACCESS EXCLUSIVE lock: webhooks, deliveries and audited admin changes wait for
-- it (docs/operations.md#archiving-old-months has the times measured on a seeded database).

-- One month's partition of a partitioned table, created as a plain table and attached, so
-- that the parent is only locked SHARE UPDATE EXCLUSIVE (reads and inserts continue) and an
-- existing DEFAULT partition is only checked for rows of that month. Returns false when the
-- month's partition exists already. The gateway's maintenance job calls it for the months
-- ahead (src/db/partitions.ts).
CREATE FUNCTION paygate_month_partition(parent regclass, month date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  first date := date_trunc('month', month)::date;
  name text := format('%s_p%s', parent::text, to_char(first, 'YYYY_MM'));
BEGIN
  IF to_regclass(name) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %s INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
                    WITH (autovacuum_vacuum_insert_scale_factor = 0.05)', name, parent);
  -- Bounds in UTC: a month is the same rows whatever the session's time zone.
  EXECUTE format('ALTER TABLE %s ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, name,
                 first::timestamp AT TIME ZONE 'UTC',
                 (first + interval '1 month')::timestamp AT TIME ZONE 'UTC');
  RETURN true;
END $$;

-- Converts one table: renames the old one, creates the partitioned one with the same columns
-- (and the same id sequence), a partition per month from its oldest row to three months
-- ahead plus a DEFAULT partition, copies the rows, then drops the old table. Indexes are
-- built by the caller after the copy (faster than maintaining them row by row).
CREATE FUNCTION pg_temp.partition_by_month(tab text, key text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  old text := tab || '_unpartitioned';
  oldest timestamptz;
  m date;
  idx record;
BEGIN
  EXECUTE format('ALTER TABLE %I RENAME TO %I', tab, old);
  -- Free the index and constraint names for the new table.
  FOR idx IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE i.indrelid = old::regclass LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', idx.relname, idx.relname || '_old');
  END LOOP;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
                    PARTITION BY RANGE (%I)', tab, old, key);
  EXECUTE format('SELECT min(%I) FROM %I', key, old) INTO oldest;
  m := date_trunc('month', least(coalesce(oldest, now()), now()) AT TIME ZONE 'UTC')::date;
  WHILE m <= (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months')::date LOOP
    PERFORM paygate_month_partition(tab::regclass, m);
    m := (m + interval '1 month')::date;
  END LOOP;
  -- The safety net: a row of a month without its partition (the job did not run for three
  -- months) still goes in, here, instead of failing its insert.
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tab || '_default', tab);
  EXECUTE format('INSERT INTO %I SELECT * FROM %I', tab, old);
  -- The sequence keeps counting from where it was; dropping the old table must not drop it.
  EXECUTE format('ALTER SEQUENCE %I OWNED BY %I.id', tab || '_id_seq', tab);
  EXECUTE format('DROP TABLE %I', old);
END $$;

SELECT pg_temp.partition_by_month('inbound_events', 'received_at');
SELECT pg_temp.partition_by_month('delivery_attempts', 'started_at');
SELECT pg_temp.partition_by_month('audit_log', 'at');

-- The keys include the partition key (PostgreSQL requires it of a partitioned table's
-- unique keys). No code looks a row up by id alone on a hot path: the inbound updates also
-- bound received_at, and the retention purges delete by (id, time).
ALTER TABLE inbound_events ADD PRIMARY KEY (id, received_at);
CREATE INDEX inbound_events_payment_idx ON inbound_events (payment_id, received_at DESC)
  WHERE payment_id IS NOT NULL;
CREATE INDEX inbound_events_received_idx ON inbound_events (received_at DESC);
CREATE INDEX inbound_events_rejected_idx ON inbound_events (received_at)
  WHERE outcome = 'bad_signature';

ALTER TABLE delivery_attempts ADD PRIMARY KEY (id, started_at);
ALTER TABLE delivery_attempts ADD FOREIGN KEY (delivery_id) REFERENCES deliveries (id);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, attempt);
CREATE INDEX delivery_attempts_started_idx ON delivery_attempts (started_at);

ALTER TABLE audit_log ADD PRIMARY KEY (id, at);
CREATE INDEX audit_log_action_idx ON audit_log (action, id DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_id, id DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor, id DESC);
-- Append only, as before (migration 0008); detaching or dropping a whole month is not a
-- DELETE, so the archive path is open to the table's owner only.
CREATE TRIGGER audit_log_append_only
  BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

-- The copied rows have no statistics yet.
ANALYZE inbound_events, delivery_attempts, audit_log;
