import type { Pool } from './pool.js';

// The simulators' own plan guard, as the gateway's keeps its tables' (src/db/planGuard.ts,
// issue 28): their named statements get a generic plan after five executions, made for the
// table as it was then; once the table has doubled in size since it was last analysed,
// ANALYZE makes every session plan again for its real size. Their table is not the gateway's
// to analyse: it lives in their schema, which the gateway's code never names.

/** Below this many pages a table's size does not matter to any plan. */
const MIN_PAGES = 16;

const GROWN = `SELECT 1 FROM pg_class
   WHERE oid = to_regclass('paygate_sim.sim_objects')
     AND pg_relation_size(oid) / current_setting('block_size')::int > greatest($1::int, 2 * relpages)`;

/**
 * Analyses paygate_sim.sim_objects when it outgrew its statistics. Instances take turns
 * through an advisory lock (the others skip: 'busy'), and ANALYZE runs in its transaction;
 * 'refused' when ANALYZE skipped it (the role does not own the table).
 */
export async function analyseSimObjectsIfGrown(
  pool: Pool,
): Promise<'small' | 'busy' | 'analysed' | 'refused'> {
  if ((await pool.query(GROWN, [MIN_PAGES])).rowCount === 0) return 'small';
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const lock = await client.query<{ ok: boolean }>(
      `SELECT pg_try_advisory_xact_lock(hashtext('paygate simulators plan guard')) AS ok`,
    );
    let outcome: 'busy' | 'analysed' | 'refused' = 'busy';
    if (lock.rows[0]?.ok) {
      await client.query('ANALYZE paygate_sim.sim_objects');
      outcome = (await client.query(GROWN, [MIN_PAGES])).rowCount === 0 ? 'analysed' : 'refused';
    }
    await client.query('COMMIT');
    return outcome;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
