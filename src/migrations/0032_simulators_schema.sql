-- The simulators keep their objects in a schema of their own (paygate_sim), made by their
-- own migrations (src/simulators/db/migrations), which the simulators apply at their start.
-- The table sim_objects that the gateway's migrations made for them (0001, 0020, 0021) goes
-- away here, but only while it is empty: with objects in it (a test-mode install running
-- before this version), it stays until the simulators' first migration has copied them into
-- their schema, and that migration drops it. Whichever of the two runs first, no object is
-- lost (docs/operations.md, "The simulators' state").
DO $$
BEGIN
  IF to_regclass('sim_objects') IS NULL THEN
    RETURN;
  END IF;
  -- No simulator of an older version writes a row between the look and the drop.
  LOCK TABLE sim_objects IN ACCESS EXCLUSIVE MODE;
  IF NOT EXISTS (SELECT 1 FROM sim_objects) THEN
    DROP TABLE sim_objects;
  END IF;
EXCEPTION
  -- The simulators' own first migration copied and dropped it while this one waited for the
  -- lock: nothing left to do.
  WHEN undefined_table THEN NULL;
END $$;
