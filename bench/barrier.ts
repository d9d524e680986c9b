/**
 * npx tsx bench/barrier.ts: the cost of one durability barrier (src/db/pool.ts), and the WAL
 * flushes it causes, against DATABASE_URL's server (required; use a cluster of its own for
 * clean flush counts, pg_stat_wal is server-wide). Compares the barrier before issue 28 (an
 * xid and no WAL: PostgreSQL commits it without a flush) with the current one.
 * Settings: BARRIER_CALLS (default 2000), BARRIER_CONCURRENCY (default 16).
 */
import pg from 'pg';
import { BARRIER_SQL } from '../src/db/pool.js';
import { createLogger } from '../src/logger.js';

const VARIANTS = {
  before: 'BEGIN; SET LOCAL synchronous_commit = on; SELECT pg_current_xact_id(); COMMIT',
  after: BARRIER_SQL,
};

interface WalStats {
  wal_sync: number;
  wal_write: number;
}

const log = createLogger('info');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function walStats(url: string): Promise<WalStats> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const rows = await c.query<WalStats>(
      'SELECT wal_sync::float8 AS wal_sync, wal_write::float8 AS wal_write FROM pg_stat_wal',
    );
    return rows.rows[0] as WalStats;
  } finally {
    await c.end();
  }
}

/** calls barriers over `concurrency` connections (sessions as the gateway's pool makes them). */
async function run(url: string, sql: string, calls: number, concurrency: number) {
  const clients = Array.from(
    { length: concurrency },
    () => new pg.Client({ connectionString: url, options: '-c synchronous_commit=off' }),
  );
  await Promise.all(clients.map((c) => c.connect()));
  // Warm the connections (first-call catalog lookups) outside the timed part.
  await Promise.all(clients.map((c) => c.query(sql)));
  const before = await walStats(url);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (c) => {
      while (next < calls) {
        next++;
        await c.query(sql);
      }
    }),
  );
  const elapsedNs = Number(process.hrtime.bigint() - started);
  // A backend reports its WAL counters when it exits; the WAL writer's own every few ms.
  await Promise.all(clients.map((c) => c.end()));
  await sleep(1500);
  const afterStats = await walStats(url);
  return {
    calls,
    concurrency,
    us_per_call: Math.round(elapsedNs / 1000 / calls),
    calls_per_s: Math.round(calls / (elapsedNs / 1e9)),
    fsyncs_per_call: Number(((afterStats.wal_sync - before.wal_sync) / calls).toFixed(3)),
    wal_writes_per_call: Number(((afterStats.wal_write - before.wal_write) / calls).toFixed(3)),
  };
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('set DATABASE_URL to the server to measure');
  const calls = Number(process.env.BARRIER_CALLS ?? 2000);
  const concurrency = Number(process.env.BARRIER_CONCURRENCY ?? 16);
  for (const [variant, sql] of Object.entries(VARIANTS)) {
    for (const c of [1, concurrency]) {
      log.info({ variant, ...(await run(url, sql, calls, c)) }, 'barrier');
    }
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log.error({ err }, 'barrier bench failed');
    process.exit(1);
  },
);
