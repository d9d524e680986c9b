import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { ADMIN_TOKEN, benchDatabase, startGatewayProcess, type BenchDatabase } from '../lib/env.js';
import { createApp } from '../lib/seed.js';
import type { BenchSettings } from '../run.js';

const SATURATED_EVENTS = 2000;
const STEADY_SECONDS = 10;
const TICK_MS = 50;
/** The down endpoint holds each request until the attempt's timeout. */
const GATEWAY_ENV = {
  DELIVERY_TIMEOUT_MS: '2000',
  DELIVERY_BASE_DELAY_MS: '500',
  DELIVERY_MAX_DELAY_MS: '2000',
};

function percentile(sorted: number[], p: number): number {
  return Math.round((sorted[Math.floor((sorted.length - 1) * p)] ?? 0) * 10) / 10;
}

interface Receivers {
  urls: string[];
  /** Arrival time per "<endpoint index>:<event seq>". */
  arrivals: Map<string, number>;
  close(): void;
}

/** `healthy` receivers answering 204 at once, and `down` that accept and never answer. */
async function receivers(healthy: number, down: number): Promise<Receivers> {
  const arrivals = new Map<string, number>();
  const servers: http.Server[] = [];
  for (let i = 0; i < healthy + down; i++) {
    const isDown = i >= healthy;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (isDown) return;
        const seq = (JSON.parse(Buffer.concat(chunks).toString()) as { seq: number }).seq;
        const key = `${i}:${seq}`;
        if (!arrivals.has(key)) arrivals.set(key, performance.now());
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
  }
  return {
    urls: servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`),
    arrivals,
    close: () =>
      servers.forEach((s) => {
        s.closeAllConnections();
        s.close();
      }),
  };
}

/**
 * One gateway process, one app with `healthy` + `down` endpoints subscribed to every kind
 * and no webhook_url. Events are written straight into the outbox (the fan-out trigger
 * makes one delivery per endpoint, as for any event), so only the delivery path is measured.
 */
async function run(db: BenchDatabase, healthy: number, down: number, steadyRate?: number) {
  const r = await receivers(healthy, down);
  const gw = await startGatewayProcess(db.url, GATEWAY_ENV);
  const app = await createApp(gw.url, {});
  for (const url of r.urls) {
    const res = await fetch(`${gw.url}/admin/apps/${app.app_id}/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, event_types: ['*'] }),
    });
    if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${await res.text()}`);
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  let seq = 0;
  const written = new Map<number, number>();
  const write = async (n: number) => {
    const first = seq;
    seq += n;
    const at = performance.now();
    await client.query(
      `INSERT INTO outbound_events (id, app_id, event_type, body)
       SELECT 'evt_' || substr(md5(gen_random_uuid()::text), 1, 24), $1, 'payment.succeeded',
         json_build_object('event', 'payment.succeeded', 'seq', g)::text
       FROM generate_series($2::int, $3::int) g`,
      [app.app_id, first, seq - 1],
    );
    for (let i = first; i < seq; i++) written.set(i, at);
  };
  const healthyArrivals = (from: number, to: number) => {
    let n = 0;
    for (let e = 0; e < healthy; e++)
      for (let i = from; i < to; i++) if (r.arrivals.has(`${e}:${i}`)) n++;
    return n;
  };
  const waitAll = async (from: number, to: number) => {
    const want = (to - from) * healthy;
    const deadline = Date.now() + 300_000;
    while (healthyArrivals(from, to) < want && Date.now() < deadline)
      await new Promise((x) => setTimeout(x, 50));
  };
  const latencies = (from: number, to: number) => {
    const out: number[] = [];
    for (let e = 0; e < healthy; e++)
      for (let i = from; i < to; i++) {
        const a = r.arrivals.get(`${e}:${i}`);
        if (a !== undefined) out.push(a - (written.get(i) as number));
      }
    return out.sort((a, b) => a - b);
  };

  // Saturated: every event at once, to the last healthy delivery.
  const started = performance.now();
  await write(SATURATED_EVENTS);
  await waitAll(0, SATURATED_EVENTS);
  const last = Math.max(...latencies(0, SATURATED_EVENTS)) + started;
  const deliveriesPerS = Math.round(
    healthyArrivals(0, SATURATED_EVENTS) / ((last - started) / 1000),
  );
  // Steady: a fixed event rate below saturation, latency of each healthy delivery.
  const rate = steadyRate ?? Math.max(1, Math.round((deliveriesPerS * 0.5) / healthy));
  const from = seq;
  const perTick = Math.max(1, Math.round((rate * TICK_MS) / 1000));
  const ticks = Math.round((STEADY_SECONDS * 1000) / TICK_MS);
  for (let t = 0; t < ticks; t++) {
    const tickStart = performance.now();
    await write(perTick);
    const wait = TICK_MS - (performance.now() - tickStart);
    if (wait > 0) await new Promise((x) => setTimeout(x, wait));
  }
  await waitAll(from, seq);
  const steady = latencies(from, seq);
  await client.end();
  const rss = gw.peakRssMiB();
  await gw.stop();
  r.close();
  return {
    endpoints: healthy + down,
    down,
    saturated: {
      events: SATURATED_EVENTS,
      healthy_deliveries: healthyArrivals(0, SATURATED_EVENTS),
      deliveries_per_s: deliveriesPerS,
    },
    steady: {
      events_per_s: Math.round((perTick * 1000) / TICK_MS),
      healthy_deliveries: steady.length,
      latency_p50_ms: percentile(steady, 0.5),
      latency_p99_ms: percentile(steady, 0.99),
    },
    peak_rss_mib: rss,
  };
}

/**
 * Webhook endpoints (docs/api.md#webhook-endpoints): 10 endpoints on one app, one of them
 * down (it never answers, so each attempt waits for DELIVERY_TIMEOUT_MS), against one
 * healthy endpoint alone as the reference, each on its own gateway and database. Deliveries
 * per second at saturation, and the healthy endpoints' delivery latency at the same event
 * rate (half the ten-endpoint saturation).
 */
export async function benchEndpoints(db: BenchDatabase, _s: BenchSettings) {
  const ten = await run(db, 9, 1);
  const refDb = await benchDatabase('paygate_bench_endpoints_ref');
  try {
    const one = await run(refDb, 1, 0, ten.steady.events_per_s);
    return {
      ten_endpoints_one_down: ten,
      one_endpoint_alone: one,
      ratios: {
        deliveries_per_s:
          Math.round((ten.saturated.deliveries_per_s / one.saturated.deliveries_per_s) * 100) / 100,
        steady_latency_p99:
          Math.round((ten.steady.latency_p99_ms / one.steady.latency_p99_ms) * 100) / 100,
      },
    };
  } finally {
    await refDb.close();
  }
}
