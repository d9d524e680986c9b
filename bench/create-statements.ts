/**
 * Statements per POST /v1/payments (docs/performance.md, "Create path, third pass"): a test
 * gateway with the simulators mounted, on a fresh database of DATABASE_URL's server (or an
 * embedded one), 50 sequential test-mode creates with an Idempotency-Key and 50 without;
 * every pg Client.query of the process is counted by statement name (or its first words).
 * Background workers' polls land in the counts too, as fractions per create.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/create-statements.ts
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startTestGateway } from '../test/helpers/gateway.js';
import { benchDatabase } from './lib/env.js';

const counts = new Map<string, number>();
let counting = false;
const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (
  this: unknown,
  ...args: unknown[]
) {
  if (counting) {
    const q = args[0] as string | { name?: string; text?: string };
    const k = typeof q === 'string' ? q.slice(0, 80) : (q.name ?? q.text?.slice(0, 80) ?? '?');
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return query.apply(this, args);
};

const db = await benchDatabase('paygate_bench_statements');
const gw = await startTestGateway({}, { database: { url: db.url, drop: async () => undefined } });
const app = await gw.createApp({});
const N = 50;
for (const withKey of [true, false]) {
  counts.clear();
  counting = true;
  for (let i = 0; i < N; i++) {
    const body = {
      external_user_id: `buyer-${i}`,
      email: 'buyer@example.com',
      amount_minor: 1000 + i,
      currency: 'IDR',
      method: 'qris',
      return_url: 'https://shop.example/back',
    };
    const headers = withKey ? { 'idempotency-key': randomUUID() } : undefined;
    const res = await gw.v1(app, 'POST', '/v1/payments', body, headers);
    if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  }
  counting = false;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${withKey ? 'with' : 'without'} an Idempotency-Key: ${total / N} statements per create`,
  );
  for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${(v / N).toFixed(2)}  ${k.replace(/\s+/g, ' ')}`);
  }
}
await gw.stop();
await db.close();
process.exit(0);
