/**
 * Rows of a query read through a server-side cursor, a batch at a time, so an export of a
 * million rows holds one batch in memory: the caller pulls the next batch only when it has
 * written the last one (backpressure). The cursor lives in a read-only transaction on its own
 * connection, closed when the caller stops reading, finishes or fails.
 */
import type { Pool } from './pool.js';

export async function* cursorRows<R>(
  pool: Pool,
  text: string,
  values: unknown[],
  batch = 2000,
): AsyncGenerator<R[]> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`DECLARE export_cursor NO SCROLL CURSOR FOR ${text}`, values);
    for (;;) {
      const res = await client.query<R & object>(`FETCH ${batch} FROM export_cursor`);
      if (res.rows.length === 0) break;
      yield res.rows;
      if (res.rows.length < batch) break;
    }
    await client.query('COMMIT');
  } catch (err) {
    broken = true;
    throw err;
  } finally {
    // Left early (the client went away) or failed: end the transaction before reuse.
    if (!broken) {
      await client.query('ROLLBACK').catch(() => (broken = true));
    }
    client.release(broken);
  }
}
