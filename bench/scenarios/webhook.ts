import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simulatorEndpoint } from '../../src/providers/testMode.js';
import { MASTER_KEY, startGatewayProcess, type BenchDatabase } from '../lib/env.js';
import { cpuWindow } from '../lib/cpu.js';
import { load } from '../lib/load.js';
import { createApp, seedPayments, settleAtProvider } from '../lib/seed.js';
import type { BenchSettings } from '../run.js';

// BENCH_WEBHOOK_EVENTS: notifications in all (half saturated, half at a steady rate).
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 30_000);

function percentile(sorted: number[], p: number): number {
  return Math.round((sorted[Math.floor((sorted.length - 1) * p)] ?? 0) * 10) / 10;
}

/**
 * Provider webhook in, signed delivery out: idr_psp settlement notifications for distinct
 * payments as fast as the gateway takes them; a local receiver notes when each delivery
 * arrives. Reports events per second from the first notification to the last delivery, and
 * the time from the gateway's acknowledgment to the delivery's arrival.
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
  const ids = await seedPayments(db.url, app.app_id, EVENTS, true);
  // The gateway confirms each notification with the provider's status API: the provider
  // must have seen each payment paid.
  await settleAtProvider(db.url, ids);
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

  /** Sends one notification per id (at most `rate` per second when given) and waits for every delivery. */
  const drive = async (batch: string[], rate?: number) => {
    const acks = new Map<string, number>();
    let next = 0;
    const cpu = await cpuWindow(db.url, {
      gateway: gw.pid,
      simulators: gw.simulators?.pid,
      load_generator_and_receiver: 'self',
    });
    const started = performance.now();
    const inbound = await load({
      url: gw.url,
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

  /** A pending notification per id, as fast as the gateway acknowledges them. */
  const notifyPending = async (batch: string[]) => {
    let next = 0;
    let acknowledged = 0;
    const cpu = await cpuWindow(db.url, {
      gateway: gw.pid,
      simulators: gw.simulators?.pid,
      load_generator_and_receiver: 'self',
    });
    const inbound = await load({
      url: gw.url,
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

  // The provider's first notification of each payment (idr_psp: pending, sent when the
  // transaction is registered): nothing to change, nothing to deliver; the archive and its
  // recorded outcome are the whole of it. As fast as the gateway takes them.
  const pending = await notifyPending(ids.slice(0, EVENTS / 2));
  // Saturation: as fast as the gateway takes them, to the last delivery.
  const saturated = await drive(ids.slice(0, EVENTS / 2));
  // Latency at a steady offered rate below saturation (a provider does not send in bursts
  // of tens of thousands): 70 % of the sustained rate.
  const rate = Math.max(1, Math.round(saturated.events_per_s * 0.7));
  const steady = await drive(ids.slice(EVENTS / 2), rate);
  const rss = gw.peakRssMiB();
  await gw.stop();
  receiver.close();
  return {
    connections: s.connections,
    events_per_s_sustained: saturated.events_per_s,
    pending,
    saturated,
    steady: { offered_per_s: rate, ...steady },
    peak_rss_mib: rss,
  };
}
