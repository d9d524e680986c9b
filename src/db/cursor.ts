/**
 * Rows of a query read through a server-side cursor, a batch at a time, so an export of a
 * million rows holds one batch in memory: the caller pulls the next batch only when it has
 * written the last one (backpressure). The cursor lives in a read-only transaction on its own
 * connection (from the exports' own pool, never the main one: gateway.ts), closed when the
 * caller stops reading, finishes or fails.
 */
import type { Pool } from './pool.js';

/**
 * The longest one export's transaction may live (docs/operations.md#csv-exports). Its
 * snapshot holds back vacuum and its connection is one of the exports' few, so a reader
 * that stalls or trickles must not keep them: before every FETCH the time left becomes the
 * transaction's statement and idle-in-transaction timeouts, so PostgreSQL itself ends it
 * (the session for an idle one) at the deadline even when the reader never asks again.
 */
export const EXPORT_MAX_MS = 10 * 60_000;

export async function* cursorRows<R>(
  pool: Pool,
  text: string,
  values: unknown[],
  batch = 2000,
  maxMs = EXPORT_MAX_MS,
): AsyncGenerator<R[]> {
  const client = await pool.connect();
  const deadline = Date.now() + maxMs;
  let broken = false;
  // PostgreSQL ends a stalled export's session between queries: the next query fails with
  // the cause, and the connection is not given back for reuse.
  const lost = () => (broken = true);
  client.on('error', lost);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`DECLARE export_cursor NO SCROLL CURSOR FOR ${text}`, values);
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`export exceeded its ${maxMs} ms limit`);
      await client.query(
        `SELECT set_config('statement_timeout', $1, true),
                set_config('idle_in_transaction_session_timeout', $1, true)`,
        [String(left)],
      );
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
    client.removeListener('error', lost);
    client.release(broken);
  }
}
