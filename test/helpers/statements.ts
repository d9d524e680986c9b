/**
 * How many rows each statement wrote to a table, for the tests that check concurrent writes
 * shared a statement (the batches of db/statementBatcher.ts): a statement trigger with a
 * transition table logs each statement's count, and `sizes()` reads them in order. A
 * statement that rolls back takes its log row with it: only committed statements count.
 */
import pg from 'pg';
import type { Queryable } from '../../src/db/pool.js';
import { eventually } from './eventually.js';

export async function statementSizes(
  db: Queryable,
  table: string,
  event: 'INSERT' | 'UPDATE',
  /** SQL over the statement's rows (`rows`): only those rows count. */
  filter = 'true',
): Promise<{ sizes(): Promise<number[]> }> {
  const name = `${table.replace(/\W/g, '_')}_${event.toLowerCase()}_sizes`;
  await db.query(`CREATE TABLE ${name} (seq serial, n int)`);
  await db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${name} (n) SELECT count(*) FROM rows WHERE ${filter} HAVING count(*) > 0;
        RETURN NULL;
      END $$`);
  await db.query(`CREATE TRIGGER ${name} AFTER ${event} ON ${table}
      REFERENCING NEW TABLE AS rows FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`);
  return {
    sizes: async () =>
      (await db.query<{ n: number }>(`SELECT n FROM ${name} ORDER BY seq`)).rows.map((r) => r.n),
  };
}

/**
 * Starts concurrent requests while writes to `table` wait behind a lock, and lets them go
 * once at least two statements are waiting and the rest have had 200 ms to arrive: the
 * requests then reach the database together, as under load, however fast it answers (on a
 * fast database the first statements can return before the next requests arrive, and
 * nothing would be shared). Reads go on. Returns what `start` returned, not awaited.
 */
export async function whileWritesHeld<T>(
  databaseUrl: string,
  table: string,
  start: () => Promise<T>,
): Promise<Promise<T>> {
  const holder = new pg.Client({ connectionString: databaseUrl });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`);
    const started = start();
    // Handled where it is awaited; not an unhandled rejection while the lock is held.
    started.catch(() => undefined);
    await eventually(async () => {
      const res = await holder.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
         WHERE NOT l.granted AND c.oid = $1::regclass`,
        [table],
      );
      return Number(res.rows[0]?.n) >= 2;
    }, `two statements waiting to write ${table}`);
    await new Promise((r) => setTimeout(r, 200));
    return started;
  } finally {
    await holder.query('COMMIT').catch(() => undefined);
    await holder.end();
  }
}
