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
import {
  claimDueDeliveries,
  claimStatement,
  type ClaimedDelivery,
  type DeliveryAttempt,
} from '../src/db/deliveries.js';
import { migrate } from '../src/db/migrate.js';
import { enqueueEvent } from '../src/db/outbox.js';
import { createPool, type Pool } from '../src/db/pool.js';
import { processTreeCpuMs } from './lib/cpu.js';

const CLAIMS = Number(process.env.CLAIM_TURNS_CLAIMS ?? 2000);
const ROUNDS = Number(process.env.CLAIM_TURNS_ROUNDS ?? 4);
const DATABASE = 'paygate_bench_claim_turns';

function delivered(d: ClaimedDelivery): DeliveryAttempt {
  return {
    deliveryId: d.id,
    verdict: 'delivered',
    statusCode: 204,
    error: null,
    responseBody: '',
    delayMs: 0,
    attempt: d.attempts,
    startedAt: new Date(),
    durationMs: 1,
  };
}

async function backendPids(pool: Pool): Promise<number[]> {
  const c = await pool.connect();
  try {
    return [(await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid];
  } finally {
    c.release();
  }
}

async function round(setup: Pool, worker: Pool, turns: boolean) {
  // Each round starts from a vacuumed table, as autovacuum keeps it: otherwise the earlier
  // rounds' dead rows slow the later rounds' claims, whichever variant they are.
  await setup.query('VACUUM deliveries, delivery_attempts');
  for (let i = 0; i < CLAIMS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, CLAIMS - i) }, () =>
        enqueueEvent(setup, {
          appId: 'app_bench',
          paymentId: null,
          eventType: 'payment.succeeded',
          body: '{}',
        }),
      ),
    );
  }
  const [pid] = await backendPids(worker);
  const pg0 = processTreeCpuMs(pid!);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let finished: DeliveryAttempt[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    const claimed = turns
      ? await claimDueDeliveries(worker, 1, 60_000, 8, finished)
      : await claimStatement(worker, 1, 60_000, 8, finished);
    if (claimed.length !== 1) throw new Error(`claim ${i} took ${claimed.length}`);
    finished = claimed.map(delivered);
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const pgMs = processTreeCpuMs(pid!) - pg0;
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
await setup.query(
  `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
     allowed_providers, allowed_methods)
   VALUES ('app_bench', 'bench', 'test', 'key_bench', 'x', 'x', '{idr_psp}', '{}')`,
);
// One connection, planned once, as the delivery worker's pool (src/app.ts).
const worker = createPool(dbUrl.toString(), 1, false, { genericPlans: true });
const sums = {
  alone: { wall: 0, node: 0, pg: 0 },
  turn: { wall: 0, node: 0, pg: 0 },
};
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const variant of ['alone', 'turn'] as const) {
      const x = await round(setup, worker, variant === 'turn');
      sums[variant].wall += x.ms_per_claim;
      sums[variant].node += x.node_cpu_ms_per_claim;
      sums[variant].pg += x.pg_cpu_ms_per_claim;
      console.log(
        JSON.stringify({ round: r + 1, variant, ...x }, (_, v: unknown) =>
          typeof v === 'number' ? Math.round(v * 1000) / 1000 : v,
        ),
      );
    }
  }
  const ratio = (k: 'wall' | 'node' | 'pg') => (sums.turn[k] / sums.alone[k]).toFixed(2);
  console.log(
    `turn / alone over ${ROUNDS} rounds of ${CLAIMS} claims: wall ${ratio('wall')}, ` +
      `node CPU ${ratio('node')}, PostgreSQL CPU ${ratio('pg')}; ` +
      `turn ${(sums.turn.wall / ROUNDS).toFixed(3)} ms, alone ${(sums.alone.wall / ROUNDS).toFixed(3)} ms per claim`,
  );
} finally {
  await worker.end();
  await setup.end();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.end();
}
