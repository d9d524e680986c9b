import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { basicAuth } from '../../src/providers/idr_psp/wire.js';
import { simulatorEndpoint } from '../../src/providers/testMode.js';
import { MASTER_KEY, startGatewayProcess, startProcess, type BenchDatabase } from '../lib/env.js';
import { cpuWindow } from '../lib/cpu.js';
import { load, ratio } from '../lib/load.js';
import { createApp, seedPayments, settleAtProvider } from '../lib/seed.js';
import type { BenchSettings } from '../run.js';

// BENCH_WEBHOOK_EVENTS: notifications in all (half saturated, half at a steady rate).
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 30_000);
/**
 * Settlement notifications that warm the gateway and the reference up (JIT, pools, kept-alive
 * sockets) before each is measured: both are measured warm, as a server runs.
 */
const WARMUP = 500;
/**
 * Status calls that warm the simulators' process before anything is measured. Its status
 * route takes a few thousand calls to reach its steady cost (each call costs twice as much
 * before): without them, whichever target runs first pays the simulators' warm-up, on the
 * cores it shares.
 */
const SIMULATOR_WARMUP = 4_000;
// BENCH_WEBHOOK_RATE: the steady phase's offered rate per second (default 70 % of saturation).
const STEADY_RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 0);

function percentile(sorted: number[], p: number): number {
  return Math.round((sorted[Math.floor((sorted.length - 1) * p)] ?? 0) * 10) / 10;
}

/** Where notifications go, and the processes whose CPU counts for them. */
interface Target {
  url: string;
  processes: Parameters<typeof cpuWindow>[1];
}

/**
 * The reference's own copy of its payments (bench/reference/webhook-server.ts): the seeded
 * rows it finalizes, with the amounts the simulator settled them for.
 */
async function seedReferenceTable(databaseUrl: string, ids: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `CREATE TABLE bench_ref_webhook (id text PRIMARY KEY, status text NOT NULL,
         amount_minor bigint NOT NULL, currency text NOT NULL, metadata jsonb NOT NULL,
         provider_ref text, finalized_at timestamptz, delivery_attempts integer NOT NULL DEFAULT 0,
         delivery_status integer, delivered_at timestamptz)`,
    );
    await client.query(
      `INSERT INTO bench_ref_webhook (id, status, amount_minor, currency, metadata)
       SELECT id, status, amount_minor, currency, metadata FROM payments WHERE id = ANY($1)`,
      [ids],
    );
  } finally {
    await client.end();
  }
}

/**
 * Provider webhook in, signed delivery out: idr_psp settlement notifications for distinct
 * payments as fast as the gateway takes them; a local receiver notes when each delivery
 * arrives. Reports events per second from the first notification to the last delivery, and
 * the time from the gateway's acknowledgment to the delivery's arrival.
 *
 * The reference, measured in the same run right after the saturated phase and under the same
 * load (connections, number of events, payments the simulator holds as settled), is
 * bench/reference/webhook-server.ts: the floor of this exchange in Node, with the signature
 * check, the status call to the same simulators, one synchronously committed row update, the
 * answer, and one signed delivery to the same receiver with its attempt recorded.
 * ratio_to_reference is the gateway's saturated events per second over the reference's.
 */
export async function benchWebhookToDelivery(db: BenchDatabase, s: BenchSettings) {
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = (JSON.parse(Buffer.concat(chunks).toString()) as { payment_id: string })
        .payment_id;
      if (!arrivals.has(id)) arrivals.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const gw = await startGatewayProcess(db.url);
  const app = await createApp(gw.url, { webhook_url: receiverUrl });
  // The gateway's payments, its warm-up's, then the reference's (as many as the saturated
  // phase, and its warm-up): rows of the gateway's table too (settleAtProvider reads them
  // there), which the gateway is never notified of.
  const seeded = await seedPayments(
    db.url,
    app.app_id,
    EVENTS + WARMUP + EVENTS / 2 + WARMUP,
    true,
  );
  const ids = seeded.slice(0, EVENTS);
  const warmupIds = seeded.slice(EVENTS, EVENTS + WARMUP);
  const refIds = seeded.slice(EVENTS + WARMUP);
  // The gateway and the reference confirm each notification with the provider's status
  // API: the provider must have seen each payment paid.
  await settleAtProvider(db.url, seeded);
  await seedReferenceTable(db.url, refIds);
  const serverKey = simulatorEndpoint('idr_psp', Buffer.from(MASTER_KEY, 'hex'), '').credentials
    .serverKey as string;
  const body = (id: string, status = 'settlement') => {
    const gross = '1000.00';
    return JSON.stringify({
      transaction_time: '2026-11-22 12:00:00',
      transaction_status: status,
      transaction_id: `tx-${id}`,
      status_message: 'midtrans payment notification',
      status_code: '200',
      signature_key: createHash('sha512').update(`${id}200${gross}${serverKey}`).digest('hex'),
      payment_type: 'qris',
      order_id: id,
      gross_amount: gross,
      fraud_status: 'accept',
      currency: 'IDR',
    });
  };

  const gateway: Target = {
    url: gw.url,
    processes: {
      gateway: gw.pid,
      simulators: gw.simulators?.pid,
      load_generator_and_receiver: 'self',
    },
  };
  /**
   * Sends one notification per id to the target (at most `rate` per second when given) and
   * waits for every delivery; CPU is counted for the target's processes.
   */
  const drive = async (target: Target, batch: string[], rate?: number) => {
    const acks = new Map<string, number>();
    let next = 0;
    const cpu = await cpuWindow(db.url, target.processes);
    const started = performance.now();
    const inbound = await load({
      url: target.url,
      connections: s.connections,
      amount: batch.length,
      ...(rate ? { overallRate: rate } : {}),
      requests: [
        {
          setupRequest: (req, context) => {
            const id = batch[next++ % batch.length] as string;
            (context as Record<string, string>).id = id;
            return {
              ...req,
              method: 'POST',
              path: '/webhooks/idr_psp',
              body: body(id),
              headers: { 'content-type': 'application/json' },
            };
          },
          onResponse: (status, _body, context) => {
            if (status === 200)
              acks.set((context as Record<string, string>).id as string, performance.now());
          },
        },
      ],
    });
    const deadline = Date.now() + 120_000;
    const delivered = () => batch.filter((id) => arrivals.has(id)).length;
    while (delivered() < acks.size && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const lastArrival = Math.max(...batch.map((id) => arrivals.get(id) ?? 0));
    const cpuPerEvent = await cpu.end(delivered());
    const lags = [...acks]
      .map(([id, t]) => (arrivals.get(id) ?? Infinity) - t)
      .sort((a, b) => a - b);
    return {
      events: batch.length,
      acknowledged: acks.size,
      delivered: delivered(),
      inbound,
      events_per_s: Math.round(delivered() / ((lastArrival - started) / 1000)),
      ack_to_delivery_p50_ms: percentile(lags, 0.5),
      ack_to_delivery_p99_ms: percentile(lags, 0.99),
      ...cpuPerEvent,
    };
  };

  /** The simulators' status route warmed up: read-only calls on the seeded payments. */
  const warmSimulators = async () => {
    const statusBase = `${gw.simulators?.url ?? gw.url}/sim/idr_psp/v2/`;
    const statusPath = new URL(statusBase).pathname;
    const authorization = basicAuth(serverKey);
    let next = 0;
    const result = await load({
      url: statusBase,
      connections: s.connections,
      amount: SIMULATOR_WARMUP,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            method: 'GET',
            path: `${statusPath}${seeded[next++ % seeded.length] as string}/status`,
            headers: { accept: 'application/json', authorization },
          }),
        },
      ],
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`simulator warm-up: ${result.non2xx} non-2xx, ${result.errors} errors`);
  };

  /** A pending notification per id, as fast as the gateway acknowledges them. */
  const notifyPending = async (batch: string[]) => {
    let next = 0;
    let acknowledged = 0;
    const cpu = await cpuWindow(db.url, gateway.processes);
    const inbound = await load({
      url: gateway.url,
      connections: s.connections,
      amount: batch.length,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            method: 'POST',
            path: '/webhooks/idr_psp',
            body: body(batch[next++ % batch.length] as string, 'pending'),
            headers: { 'content-type': 'application/json' },
          }),
          onResponse: (status) => {
            if (status === 200) acknowledged++;
          },
        },
      ],
    });
    return { events: batch.length, acknowledged, inbound, ...(await cpu.end(acknowledged)) };
  };

  /**
   * The reference (bench/reference/webhook-server.ts) on the reference's own payments: warmed
   * up, then as many notifications as the gateway's saturated phase. Its CPU is its process's,
   * its PostgreSQL backends' (application_name reference) and the simulators' it calls.
   */
  const measureReference = async () => {
    const ref = await startProcess(
      ['bench/reference/webhook-server.ts'],
      {
        DATABASE_URL: db.url,
        // The simulators of their own process, else the ones mounted in the gateway.
        REF_PROVIDER_URL: `${gw.simulators?.url ?? gw.url}/sim/idr_psp`,
        REF_SERVER_KEY: serverKey,
        REF_WEBHOOK_URL: receiverUrl,
        REF_WEBHOOK_SECRET: app.webhook_secret,
      },
      '/ready',
    );
    try {
      const target: Target = {
        url: ref.url,
        processes: {
          reference: ref.pid,
          // Mounted simulators: the gateway's process, idle but for them.
          simulators: gw.simulators?.pid ?? gw.pid,
          load_generator_and_receiver: 'self',
        },
      };
      await drive(target, refIds.slice(EVENTS / 2));
      const measured = await drive(target, refIds.slice(0, EVENTS / 2));
      return { ...measured, peak_rss_mib: ref.peakRssMiB() };
    } finally {
      await ref.stop();
    }
  };

  await warmSimulators();
  // The provider's first notification of each payment (idr_psp: pending, sent when the
  // transaction is registered): nothing to change, nothing to deliver; the archive and its
  // recorded outcome are the whole of it. As fast as the gateway takes them.
  // The pending path warmed up first (the warm-up's payments get their pending notification,
  // as from the provider, before their settlement below): its figure was the gateway's
  // first seconds, the optimizing compiler's included.
  await notifyPending(warmupIds);
  const pending = await notifyPending(ids.slice(0, EVENTS / 2));
  // The settlement path warmed up (the pending phase did not reach the provider's status
  // API, the finalization or the delivery), as the reference is before it is measured.
  await drive(gateway, warmupIds);
  // Saturation: as fast as the gateway takes them, to the last delivery.
  const saturated = await drive(gateway, ids.slice(0, EVENTS / 2));
  // The reference right after, under the same load, against the same simulators and
  // receiver (the gateway stays up, idle, for its simulators).
  const reference = await measureReference();
  // Latency at a steady offered rate below saturation (a provider does not send in bursts
  // of tens of thousands): 70 % of the sustained rate.
  const rate = STEADY_RATE || Math.max(1, Math.round(saturated.events_per_s * 0.7));
  const steady = await drive(gateway, ids.slice(EVENTS / 2), rate);
  const rss = gw.peakRssMiB();
  await gw.stop();
  receiver.close();
  return {
    connections: s.connections,
    events_per_s_sustained: saturated.events_per_s,
    ratio_to_reference: ratio(saturated.events_per_s, reference.events_per_s),
    pending,
    saturated,
    reference,
    steady: { offered_per_s: rate, ...steady },
    peak_rss_mib: rss,
  };
}
