import pg from 'pg';
import {
  checkPrimary,
  clientClass,
  CONNECTION_SETTINGS,
  locatorFor,
  type PrimaryLocator,
} from './connection.js';

// int8 columns (amounts, counts) arrive as strings by default; every amount the gateway
// stores is a safe integer (validated on the way in), so parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`int8 value out of safe range: ${v}`);
  return n;
});

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Commits on these connections do not wait for the WAL flush (synchronous_commit=off):
 * a request makes several commits, and waiting for a disk flush after each would bound the
 * gateway by the disk's flush rate several times over. Durability comes from one barrier,
 * `durable()`, before anything leaves the process: every reply to a state-changing request,
 * every outbound delivery, every money-moving provider call. A request whose last write
 * goes through a synchronous pool (synchronousCommit = true) needs no separate barrier:
 * that commit flushes everything before it. See docs/adr/0002.
 *
 * `connection` is a URL (one or several hosts, db/connection.ts) or the process's shared
 * locator of the primary. Behind PgBouncer's transaction pooling no session setting can be
 * made, so every commit there is synchronous (the server's default): slower, never less safe.
 */
export function createPool(
  connection: string | PrimaryLocator,
  max = 20,
  synchronousCommit = false,
  { genericPlans = false }: { genericPlans?: boolean } = {},
): pg.Pool {
  const locator = locatorFor(connection);
  // genericPlans: each named statement is planned once per connection, for the statements
  // whose planning costs more than their execution (the delivery worker's claims).
  const settings = [
    `-c synchronous_commit=${synchronousCommit ? 'on' : 'off'}`,
    ...(genericPlans ? ['-c plan_cache_mode=force_generic_plan'] : []),
  ];
  const session = locator.target.transactionPooling ? {} : { options: settings.join(' ') };
  const pool = new pg.Pool({
    max,
    idleTimeoutMillis: 30_000,
    Client: clientClass(locator, { ...CONNECTION_SETTINGS, ...session }),
    // pg-pool awaits a promise returned here, although its types say void.
    onConnect: (client) => checkPrimary(client as pg.Client, locator) as unknown as void,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * The barrier's one round trip. PostgreSQL flushes at commit (and waits for the synchronous
 * standby) only when the transaction has an xid AND wrote WAL of its own besides the commit
 * record; an xid alone is not enough, the commit is then asynchronous whatever
 * synchronous_commit says. A transactional logical message does both (it takes an xid and
 * writes one small WAL record) without touching a table: no row, no contention between
 * concurrent barriers, nothing to clean up, no privilege beyond the default. Decoders of
 * logical replication ignore it unless asked for messages, and then see prefix `paygate`.
 */
export const BARRIER_SQL =
  "BEGIN; SET LOCAL synchronous_commit = on; SELECT pg_logical_emit_message(true, 'paygate', ''); COMMIT";

/**
 * Returns once every commit made so far, on any connection, is on disk (and on the
 * synchronous standby when one is configured): flushing the WAL up to the barrier's commit
 * record flushes every earlier commit too. Concurrent barriers share one flush (PostgreSQL's
 * group commit). See docs/adr/0002.
 */
export async function durable(pool: Queryable): Promise<void> {
  await pool.query(BARRIER_SQL);
}

/**
 * Runs fn in one transaction on one client; rolls back on any error. `begin` opens it, and
 * may take locks or set what the transaction needs in the same round trip.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (c: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
