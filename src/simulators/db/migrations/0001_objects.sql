-- The simulators' objects (test mode): each provider object as its own JSON, named by
-- (provider, kind, id). Their schema, apart from the gateway's tables (docs/operations.md,
-- "The simulators' state").
CREATE TABLE paygate_sim.sim_objects (
  provider         text NOT NULL,
  kind             text NOT NULL,
  id               text NOT NULL,
  idempotency_key  text,
  data             jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, kind, id)
) WITH (
  -- Objects change state several times each: room for HOT updates, vacuumed early.
  fillfactor = 80,
  autovacuum_vacuum_scale_factor = 0.02
);
CREATE UNIQUE INDEX sim_objects_idempotency_key ON paygate_sim.sim_objects (provider, kind, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
-- The purge of old objects (purgeOldSimObjects), oldest first. created_at never changes, so
-- the objects' own updates stay HOT.
CREATE INDEX sim_objects_created_idx ON paygate_sim.sim_objects (created_at);

-- Before this schema the objects lived in the table sim_objects beside the gateway's own (its
-- migrations 0001 to 0031 made it). A running test-mode install keeps them: they are copied
-- here and the old table is dropped, in this migration's transaction. The gateway's migration
-- 0032 drops that table only while it is empty, so whichever of the two runs first, nothing
-- is lost. Under the table lock no old-version simulator writes to it meanwhile.
DO $$
DECLARE
  legacy regclass := to_regclass('sim_objects');
  -- Its name as text, taken while it exists: a regclass of a table dropped meanwhile would
  -- print as a bare number.
  legacy_name text := legacy::text;
BEGIN
  IF legacy IS NULL OR legacy = 'paygate_sim.sim_objects'::regclass THEN
    RETURN;
  END IF;
  EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', legacy_name);
  EXECUTE format(
    'INSERT INTO paygate_sim.sim_objects
       (provider, kind, id, idempotency_key, data, created_at, updated_at)
     SELECT provider, kind, id, idempotency_key, data, created_at, updated_at FROM %s
     ON CONFLICT DO NOTHING',
    legacy_name);
  EXECUTE format('DROP TABLE %s', legacy_name);
EXCEPTION
  -- The gateway's 0032 dropped it (empty) between the look and the lock: nothing to copy.
  WHEN undefined_table THEN NULL;
END $$;
