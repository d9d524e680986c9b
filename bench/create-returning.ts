/**
 * A/B of the claimed insert of POST /v1/payments (docs/performance.md, "Create path, third
 * pass"): returning every payment column against the invoice number only. One connection,
 * sequential, alternating rounds of 400 statements; the node process's CPU
 * (process.cpuUsage) and its backend's (/proc/<pid>/stat, 10 ms ticks) per statement.
 * Needs the PostgreSQL server on this machine (the backend's /proc entry).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/create-returning.ts
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import {
  creationValues,
  CUSTOMER_UPSERT_ON_CONFLICT,
  PAYMENT_COLUMNS,
  PAYMENT_INSERT_FROM_CUSTOMER,
} from '../src/db/payments.js';
import '../src/db/pool.js'; // the gateway's int8 parser
import { benchDatabase } from './lib/env.js';

const db = await benchDatabase('paygate_bench_returning');
const c = new pg.Client({ connectionString: db.url, options: '-c synchronous_commit=off' });
await c.connect();
const pid = (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
const app = 'app_returning';
await c.query(
  `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
     allowed_providers, allowed_methods)
   VALUES ($1, 'returning', 'test', 'key_returning', 'x', 'x', '{idr_psp}', '{}')`,
  [app],
);
const backendTicks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(f[11]) + Number(f[12]);
};
const text = (returning: string) => `WITH claim AS (
     INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, locked_until,
       resource_id)
     VALUES ($13, $14, $15, $17, 'processing', now() + $18 * interval '1 millisecond', $1)
     ON CONFLICT DO NOTHING RETURNING 1),
   customer AS (
     INSERT INTO customers (app_id, external_user_id, email, payments_count)
     SELECT $2, $8, $9, 1 FROM claim ${CUSTOMER_UPSERT_ON_CONFLICT} RETURNING 1)
   ${PAYMENT_INSERT_FROM_CUSTOMER} RETURNING ${returning}`;
const variants = { every_column: text(PAYMENT_COLUMNS), invoice_number: text('invoice_number') };
const N = 400;
const ROUNDS = 6; // the first is a warm-up
const out: Record<string, { node: number[]; pg: number[] }> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, statement] of Object.entries(variants)) {
    const node0 = process.cpuUsage();
    const pg0 = backendTicks();
    for (let i = 0; i < N; i++) {
      const id = randomUUID().replace(/-/g, '');
      const payment = {
        id,
        app_id: app,
        mode: 'test' as const,
        amount_minor: 1000 + i,
        currency: 'IDR',
        method: 'qris',
        provider: 'idr_psp',
        external_user_id: `buyer-${i % 1000}`,
        email: 'buyer@example.com',
        return_url: 'https://shop.example/back',
        metadata: { order: 'O-1' },
      };
      const ctx = {
        invoicePrefix: null,
        claim: { appId: app, endpoint: 'POST /v1/payments', key: id },
        registrationDeadline: new Date(),
      };
      await c.query({
        name: `returning_${name}`,
        text: statement,
        values: [...creationValues(payment, ctx), 'h', 60_000],
      });
    }
    const node = process.cpuUsage(node0);
    const pgTicks = backendTicks() - pg0;
    if (round === 0) continue;
    (out[name] ??= { node: [], pg: [] }).node.push((node.user + node.system) / N);
    out[name]!.pg.push((pgTicks * 10_000) / N);
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (const [name, r] of Object.entries(out)) {
  console.log(
    `${name}: node µs/statement ${median(r.node).toFixed(0)} (rounds ${r.node.map((x) => x.toFixed(0)).join(' ')}),` +
      ` backend µs/statement ${median(r.pg).toFixed(0)} (rounds ${r.pg.map((x) => x.toFixed(0)).join(' ')})`,
  );
}
await c.end();
await db.close();
