/**
 * npx tsx bench/claim-turns.ts: what a delivery claim's turn costs (src/db/deliveries.ts
 * CLAIM_TURN_SQL), one worker with no other instance, against DATABASE_URL's server
 * (required). The reference, measured in the same run and alternated with it, is the claim's
 * statement alone, as it ran before claims took turns. Each claim takes one delivery and
 * records the one before it, as under a steady flow of events (the worker's usual claim); its
 * commit is synchronous (the deliveries' durability barrier) either way.
 * Settings: CLAIM_TURNS_CLAIMS (per round, default 2000), CLAIM_TURNS_ROUNDS (default 4).
 */
import pg from 'pg';
import { claimDueDeliveries, claimStatement, type DeliveryAttempt } from '../src/db/deliveries.js';
import { migrate } from '../src/db/migrate.js';
import { createPool, type Pool } from '../src/db/pool.js';
import { createLogger } from '../src/logger.js';
import { deliveredAttempt, enqueueDeliveries, insertPlansApp } from '../test/helpers/plans.js';
import { processTreeCpuMs } from './lib/cpu.js';

const CLAIMS = Number(process.env.CLAIM_TURNS_CLAIMS ?? 2000);
const ROUNDS = Number(process.env.CLAIM_TURNS_ROUNDS ?? 4);
const DATABASE = 'paygate_bench_claim_turns';

/** The backend of the worker's one connection. */
async function backendPid(pool: Pool): Promise<number> {
  return (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
}

async function round(setup: Pool, worker: Pool, turns: boolean) {
  // Each round starts from a vacuumed table, as autovacuum keeps it: otherwise the earlier
  // rounds' dead rows slow the later rounds' claims, whichever variant they are.
  await setup.query('VACUUM deliveries, delivery_attempts');
  await enqueueDeliveries(setup, CLAIMS);
  const pid = await backendPid(worker);
  const pg0 = processTreeCpuMs(pid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let finished: DeliveryAttempt[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    const claimed = turns
      ? await claimDueDeliveries(worker, 1, 60_000, 8, finished)
      : await claimStatement(worker, 1, 60_000, 8, finished);
    if (claimed.length !== 1) throw new Error(`claim ${i} took ${claimed.length}`);
    finished = claimed.map((d) => deliveredAttempt(d.id, d.attempts));
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const pgMs = processTreeCpuMs(pid) - pg0;
  await claimStatement(worker, 0, 60_000, 8, finished);
  return {
    ms_per_claim: ms / CLAIMS,
    node_cpu_ms_per_claim: (cpu.user + cpu.system) / 1000 / CLAIMS,
    pg_cpu_ms_per_claim: pgMs / CLAIMS,
  };
}

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
await admin.query(`CREATE DATABASE ${DATABASE}`);
const dbUrl = new URL(url);
dbUrl.pathname = `/${DATABASE}`;
const setup = createPool(dbUrl.toString(), 4);
await migrate(setup);
await insertPlansApp(setup);
// One connection, planned once, as the delivery worker's pool (src/app.ts).
const worker = createPool(dbUrl.toString(), 1, false, { genericPlans: true });
const log = createLogger('info');
const sums = {
  alone: { wall: 0, node: 0, pg: 0 },
  turn: { wall: 0, node: 0, pg: 0 },
};
const round3 = (v: number) => Math.round(v * 1000) / 1000;
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const variant of ['alone', 'turn'] as const) {
      const x = await round(setup, worker, variant === 'turn');
      sums[variant].wall += x.ms_per_claim;
      sums[variant].node += x.node_cpu_ms_per_claim;
      sums[variant].pg += x.pg_cpu_ms_per_claim;
      log.info(
        {
          round: r + 1,
          variant,
          ms_per_claim: round3(x.ms_per_claim),
          node_cpu_ms_per_claim: round3(x.node_cpu_ms_per_claim),
          pg_cpu_ms_per_claim: round3(x.pg_cpu_ms_per_claim),
        },
        'claim round',
      );
    }
  }
  const ratio = (k: 'wall' | 'node' | 'pg') => round3(sums.turn[k] / sums.alone[k]);
  log.info(
    {
      rounds: ROUNDS,
      claims_per_round: CLAIMS,
      wall_ratio: ratio('wall'),
      node_cpu_ratio: ratio('node'),
      pg_cpu_ratio: ratio('pg'),
      turn_ms_per_claim: round3(sums.turn.wall / ROUNDS),
      alone_ms_per_claim: round3(sums.alone.wall / ROUNDS),
    },
    'turn against alone',
  );
} finally {
  await worker.end();
  await setup.end();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.end();
}
