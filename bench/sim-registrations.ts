/**
 * PostgreSQL's CPU per simulator registration by registrations per statement
 * (docs/performance.md, "The simulators' registrations in batches"): idr_psp-sized
 * transactions with their two references, written by 8 connections through
 * insertLinkedSimObjects (one registration per statement: the lone statement, as before
 * batching; more: the batch form). PostgreSQL's CPU is read from /proc for the 8 backends, so
 * the server must be on this machine.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/sim-registrations.ts
 *
 * Settings: BENCH_REGISTRATIONS (per size and round, default 4000), BENCH_ROUNDS (default 3).
 */
import { randomUUID } from 'node:crypto';
import { createPool } from '../src/db/pool.js';
import { migrateSimulators } from '../src/simulators/db/migrate.js';
import { insertLinkedSimObjects, type LinkedInsert } from '../src/simulators/db/linkedObjects.js';
import { processTreeCpuMs } from './lib/cpu.js';
import { benchDatabase } from './lib/env.js';

const CONNECTIONS = 8;
const N = Number(process.env.BENCH_REGISTRATIONS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const db = await benchDatabase('paygate_bench_sim_registrations');
const pool = createPool(db.url, CONNECTIONS);
await migrateSimulators(pool);
const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => pool.connect()));
const backends = await Promise.all(
  clients.map(
    async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid,
  ),
);
clients.forEach((c) => c.release());
const backendCpuMs = () => backends.reduce((s, pid) => s + processTreeCpuMs(pid), 0);

/** A Snap transaction as the idr_psp simulator stores it, with its token and transaction_id. */
function registration(): LinkedInsert {
  const id = randomUUID().replace(/-/g, '');
  const now = Date.now();
  const data = {
    ...{ order_id: id, transaction_id: randomUUID(), token: randomUUID(), flow: 'snap' },
    ...{ channel: 'bca_va', gross_amount: 50000, currency: 'IDR', email: 'buyer@example.com' },
    ...{ finish_url: 'https://shop.example/return', merchant_id: 'G123456789' },
    ...{ transaction_status: 'pending', status_message: 'Success, transaction is found' },
    ...{ transaction_time_ms: now, expiry_ms: now + 86_400_000, settlement_time_ms: null },
    ...{ va_number: '12345678901', bill_key: null, biller_code: null, qr_string: null },
    ...{ custom_field1: null, enabled: ['bca_va'], chosen: true },
  };
  return {
    key: { provider: 'idr_psp', kind: 'transaction', id },
    data,
    links: [data.token, data.transaction_id].map((r) => ({
      kind: 'ref',
      id: r,
      data: { order_id: id },
    })),
  };
}

/** PostgreSQL CPU µs per registration, `size` registrations per statement on each connection. */
async function measure(size: number) {
  const start = backendCpuMs();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let i = 0; i < N / CONNECTIONS; i += size) {
        await insertLinkedSimObjects(pool, Array.from({ length: size }, registration));
      }
    }),
  );
  return Math.round((1000 * (backendCpuMs() - start)) / N);
}

const SIZES = [1, 2, 4, 8, 32];
const results = SIZES.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, size] of SIZES.entries()) results[i]!.push(await measure(size));
}
for (const [i, size] of SIZES.entries()) {
  console.log(
    `${String(size).padStart(2)} per statement: PostgreSQL CPU µs per registration ${results[i]!.join(' / ')}`,
  );
}
await pool.end();
await db.close();
