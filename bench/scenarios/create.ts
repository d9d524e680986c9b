import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { BARRIER_SQL } from '../../src/db/pool.js';
import { cpuWindow } from '../lib/cpu.js';
import { startGatewayProcess, type BenchDatabase } from '../lib/env.js';
import { load, ratio, type LoadOptions } from '../lib/load.js';
import { createApp } from '../lib/seed.js';
import { signedHeaders } from '../lib/sign.js';
import type { BenchSettings } from '../run.js';

/**
 * Row writes one test-mode POST /v1/payments makes: idempotency claim; customer, payment
 * and the key's pointer (one statement); the simulator's transaction and its two reference
 * rows; the provider reference; idempotency completion.
 */
const WRITES_PER_PAYMENT = 9; // rows; the simulator writes its three in one statement

/**
 * The reference: a raw node-postgres loop doing the same number of single-row writes per
 * "payment", with the gateway's commit discipline (asynchronous commits, then one
 * synchronous barrier commit), so the ratio isolates what HTTP, JSON, signing and the
 * simulator hop cost on top of the database work.
 */
async function referenceWrites(databaseUrl: string, s: BenchSettings) {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 20,
    options: '-c synchronous_commit=off',
    application_name: 'reference',
  });
  // A connection ended by the server (a shared machine) must not end the run.
  pool.on('error', () => undefined);
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench_ref (id text PRIMARY KEY, n integer, data jsonb)',
  );
  const latencies: number[] = [];
  let done = 0;
  const cpu = await cpuWindow(databaseUrl, { reference: 'self' });
  const until = Date.now() + s.durationS * 1000;
  const worker = async () => {
    while (Date.now() < until) {
      const t0 = performance.now();
      const id = randomUUID();
      await pool.query('INSERT INTO bench_ref (id, n, data) VALUES ($1, 0, $2)', [id, '{"a":1}']);
      for (let i = 1; i < WRITES_PER_PAYMENT; i++) {
        await pool.query('UPDATE bench_ref SET n = $2 WHERE id = $1', [id, i]);
      }
      await pool.query(BARRIER_SQL);
      latencies.push(performance.now() - t0);
      done++;
    }
  };
  await Promise.all(Array.from({ length: s.connections }, worker));
  const cpuPerOp = await cpu.end(done);
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
    ...cpuPerOp,
  };
}

/** POST /v1/payments in test mode (idr_psp qris through the built-in simulator), each with its own key. */
export async function benchCreatePayments(db: BenchDatabase, s: BenchSettings) {
  const setup = await startGatewayProcess(db.url);
  const app = await createApp(setup.url, {});
  await setup.stop();
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
  const instances: Record<string, unknown>[] = [];
  for (const workers of s.instances) {
    const gw = await startGatewayProcess(db.url, { WORKERS: String(workers) });
    await load({ url: gw.url, connections: s.connections, duration: 2, requests: [request()] });
    const cpu = await cpuWindow(db.url, {
      gateway: gw.pid,
      simulators: gw.simulators?.pid,
      load_generator: 'self',
    });
    const result = await load({
      url: gw.url,
      connections: s.connections,
      duration: s.durationS,
      requests: [request()],
    });
    const cpuPerOp = await cpu.end(result.requests);
    instances.push({ workers, ...result, ...cpuPerOp, peak_rss_mib: gw.peakRssMiB() });
    await gw.stop();
  }
  const reference = await referenceWrites(db.url, s);
  return {
    connections: s.connections,
    duration_s: s.durationS,
    writes_per_payment: WRITES_PER_PAYMENT,
    gateway: instances.map((g) => ({
      ...g,
      ratio_to_reference: ratio(g.rps as number, reference.rps),
    })),
    reference,
  };
}
