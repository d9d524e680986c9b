import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startGatewayProcess, type BenchDatabase } from '../lib/env.js';
import { load, ratio, type LoadOptions } from '../lib/load.js';
import { createApp } from '../lib/seed.js';
import { signedHeaders } from '../lib/sign.js';
import type { BenchSettings } from '../run.js';

/**
 * Row writes one test-mode POST /v1/payments makes: idempotency claim, customer upsert,
 * payment insert, idempotency resource, simulator transaction, provider reference,
 * idempotency completion.
 */
const WRITES_PER_PAYMENT = 7;

/** The reference: a raw node-postgres loop doing the same number of single-row writes. */
async function referenceWrites(databaseUrl: string, s: BenchSettings) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench_ref (id text PRIMARY KEY, n integer, data jsonb)',
  );
  const latencies: number[] = [];
  let done = 0;
  const until = Date.now() + s.durationS * 1000;
  const worker = async () => {
    while (Date.now() < until) {
      const t0 = performance.now();
      const id = randomUUID();
      await pool.query('INSERT INTO bench_ref (id, n, data) VALUES ($1, 0, $2)', [id, '{"a":1}']);
      for (let i = 1; i < WRITES_PER_PAYMENT; i++) {
        await pool.query('UPDATE bench_ref SET n = $2 WHERE id = $1', [id, i]);
      }
      latencies.push(performance.now() - t0);
      done++;
    }
  };
  await Promise.all(Array.from({ length: s.connections }, worker));
  await pool.query('DROP TABLE bench_ref');
  await pool.end();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    Math.round((latencies[Math.floor((latencies.length - 1) * p)] ?? 0) * 100) / 100;
  return {
    payments_equivalent: done,
    rps: Math.round(done / s.durationS),
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
  };
}

/** POST /v1/payments in test mode (idr_psp qris through the built-in simulator), each with its own key. */
export async function benchCreatePayments(db: BenchDatabase, s: BenchSettings) {
  const gw = await startGatewayProcess(db.url);
  const app = await createApp(gw.url, {});
  type Req = NonNullable<LoadOptions['requests']>[number];
  const request = (): Req => ({
    setupRequest: (req) => {
      const body = JSON.stringify({
        external_user_id: `buyer-${Math.floor(Math.random() * 100_000)}`,
        email: 'bench@example.com',
        amount_minor: 1000 + Math.floor(Math.random() * 100_000),
        currency: 'IDR',
        method: 'qris',
        return_url: 'https://shop.example/back',
      });
      return {
        ...req,
        method: 'POST',
        path: '/v1/payments',
        body,
        headers: {
          ...signedHeaders(app, 'POST', '/v1/payments', body),
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
      };
    },
  });
  await load({ url: gw.url, connections: s.connections, duration: 2, requests: [request()] });
  const result = await load({
    url: gw.url,
    connections: s.connections,
    duration: s.durationS,
    requests: [request()],
  });
  const rss = gw.peakRssMiB();
  await gw.stop();
  const reference = await referenceWrites(db.url, s);
  return {
    connections: s.connections,
    duration_s: s.durationS,
    writes_per_payment: WRITES_PER_PAYMENT,
    gateway: { ...result, peak_rss_mib: rss, ratio_to_reference: ratio(result.rps, reference.rps) },
    reference,
  };
}
