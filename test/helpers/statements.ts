/**
 * How many rows each statement wrote to a table, for the tests that check concurrent writes
 * shared a statement (the batches of db/statementBatcher.ts): a statement trigger with a
 * transition table logs each statement's count, and `sizes()` reads them in order. A
 * statement that rolls back takes its log row with it: only committed statements count.
 */
import type { Queryable } from '../../src/db/pool.js';

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
