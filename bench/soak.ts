/**
 * The soak (npm run bench -- soak): sustained load at a fixed rate for BENCH_SOAK_MINUTES
 * (default 30), reported minute by minute, to see what a 15-second run cannot: latency that
 * creeps, a delivery backlog that grows, memory that does not come back, dead rows piling up.
 *
 * The rate is half the maximum create rate measured at the start of the same run
 * (BENCH_SOAK_RATE overrides it). Per second: `rate` creates (idr_psp QRIS through the
 * simulator), the simulator's pay on 80 % of them (a GET for the provider reference, then the
 * pay action, which notifies the gateway), and 5 × `rate` signed GETs of known payments. A
 * local receiver checks every delivery's signature and counts `payment.succeeded` per
 * payment, so a lost or doubled delivery shows.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { signWebhook } from '../src/delivery/signer.js';
import { startGatewayProcess, type BenchDatabase } from './lib/env.js';
import { load, ratio, type LoadOptions } from './lib/load.js';

type Req = NonNullable<LoadOptions['requests']>[number];
import { createApp, type BenchApp } from './lib/seed.js';
import { signedHeaders } from './lib/sign.js';
import type { BenchSettings } from './run.js';

const PAY_SHARE = 0.8;
const GETS_PER_CREATE = 5;

interface Minute {
  minute: number;
  creates: { rps: number; p50_ms: number; p99_ms: number; non2xx: number; errors: number };
  gets: { rps: number; p50_ms: number; p99_ms: number; non2xx: number; errors: number };
  paid: number;
  delivery_backlog: number;
  rss_mib: number;
  dead_rows: number;
  dead_rows_by_table: Record<string, number>;
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

function createBody(): string {
  return JSON.stringify({
    external_user_id: `buyer-${Math.floor(Math.random() * 100_000)}`,
    email: 'soak@example.com',
    amount_minor: 1000 + Math.floor(Math.random() * 100_000),
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
  });
}

/** A receiver like an app's: checks the signature, counts succeeded events per payment. */
async function startReceiver(secret: () => string) {
  const succeeded = new Map<string, number>();
  let badSignatures = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const ts = String(req.headers['x-pay-timestamp'] ?? '');
      if (req.headers['x-pay-signature'] !== signWebhook(secret(), ts, raw)) {
        badSignatures++;
        res.writeHead(400).end();
        return;
      }
      const body = JSON.parse(raw) as { event: string; payment_id: string };
      if (body.event === 'payment.succeeded') {
        succeeded.set(body.payment_id, (succeeded.get(body.payment_id) ?? 0) + 1);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    succeeded,
    badSignatures: () => badSignatures,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function sample(db: pg.Client) {
  const backlog = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM deliveries WHERE status = 'pending'`,
  );
  const dead = await db.query<{ relname: string; n: string }>(
    `SELECT relname, n_dead_tup AS n FROM pg_stat_user_tables WHERE n_dead_tup > 0
     ORDER BY n_dead_tup DESC LIMIT 8`,
  );
  const byTable = Object.fromEntries(dead.rows.map((r) => [r.relname, Number(r.n)]));
  return {
    delivery_backlog: Number(backlog.rows[0]?.n ?? 0),
    dead_rows: Object.values(byTable).reduce((a, b) => a + b, 0),
    dead_rows_by_table: byTable,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? 0;
}

export async function benchSoak(db: BenchDatabase, s: BenchSettings) {
  const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
  // The receiver exists before the app whose secret it checks.
  const secret = { value: '' };
  const receiver = await startReceiver(() => secret.value);
  const gw = await startGatewayProcess(db.url);
  const theApp: BenchApp = await createApp(gw.url, { webhook_url: receiver.url });
  secret.value = theApp.webhook_secret;
  const createRequest: Req = {
    setupRequest: (req) => {
      const body = createBody();
      return {
        ...req,
        method: 'POST',
        path: '/v1/payments',
        body,
        headers: {
          ...signedHeaders(theApp, 'POST', '/v1/payments', body),
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
      };
    },
  };

  // The maximum, measured now on this database, sets the rate.
  const probe = await load({
    url: gw.url,
    connections: s.connections,
    duration: 15,
    requests: [createRequest],
  });
  const rate = Number(process.env.BENCH_SOAK_RATE ?? Math.max(1, Math.round(probe.rps / 2)));
  console.log(`soak: maximum ${probe.rps} creates/s, soaking at ${rate}/s for ${minutes} min`);

  const known: string[] = [];
  const toPay: string[] = [];
  let paid = 0;
  let payFailures = 0;
  // Pays 80 % of the payments created, at the rate they arrive.
  let paying = true;
  const payLoop = async () => {
    while (paying) {
      const id = toPay.shift();
      if (!id) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      try {
        const path = `/v1/payments/${id}`;
        const read = await fetch(gw.url + path, {
          headers: signedHeaders(theApp, 'GET', path, ''),
        });
        const ref = ((await read.json()) as { provider_ref: string }).provider_ref;
        const res = await fetch(`${gw.simulators?.url ?? gw.url}/sim/idr_psp/payments/${ref}/pay`, {
          method: 'POST',
        });
        await res.text();
        if (res.status === 200) paid++;
        else payFailures++;
      } catch {
        payFailures++;
      }
    }
  };
  const payers = Array.from({ length: 8 }, payLoop);

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const pid = gw.child.pid as number;
  const perMinute: Minute[] = [];
  const createTimes: number[] = [];
  for (let minute = 1; minute <= minutes; minute++) {
    const paidBefore = paid;
    const [creates, gets] = await Promise.all([
      load({
        url: gw.url,
        connections: s.connections,
        duration: 60,
        overallRate: rate,
        requests: [
          {
            ...createRequest,
            onResponse: (status, body) => {
              if (status !== 201) return;
              const id = (JSON.parse(body) as { payment_id: string }).payment_id;
              known.push(id);
              createTimes.push(Date.now());
              if (Math.random() < PAY_SHARE) toPay.push(id);
            },
          },
        ],
      }),
      load({
        url: gw.url,
        connections: s.connections,
        duration: 60,
        overallRate: rate * GETS_PER_CREATE,
        requests: [
          {
            setupRequest: (req) => {
              const id = known[Math.floor(Math.random() * known.length)] ?? 'none';
              const path = `/v1/payments/${id}`;
              return {
                ...req,
                method: 'GET',
                path,
                headers: signedHeaders(theApp, 'GET', path, ''),
              };
            },
          },
        ],
      }),
    ]);
    const row: Minute = {
      minute,
      creates,
      gets,
      paid: paid - paidBefore,
      rss_mib: rssMiB(pid),
      ...(await sample(client)),
    };
    perMinute.push(row);
    console.log(
      `minute ${minute}: create p99 ${creates.p99_ms} ms, get p99 ${gets.p99_ms} ms, ` +
        `backlog ${row.delivery_backlog}, rss ${row.rss_mib} MiB, dead rows ${row.dead_rows}`,
    );
  }
  // Let the last deliveries arrive before counting them.
  const drainUntil = Date.now() + 120_000;
  while (toPay.length > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 200));
  paying = false;
  await Promise.all(payers);
  while (Date.now() < drainUntil && (await sample(client)).delivery_backlog > 0) {
    await new Promise((r) => setTimeout(r, 500));
  }
  const succeededRows = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM payments WHERE status = 'succeeded'`,
  );
  await client.end();
  const peak = gw.peakRssMiB();
  await gw.stop();
  await receiver.close();

  const window = Math.min(5, Math.floor(minutes / 2)) || 1;
  const first = perMinute.slice(0, window);
  const last = perMinute.slice(-window);
  const p99 = (rows: Minute[], k: 'creates' | 'gets') => median(rows.map((r) => r[k].p99_ms));
  const deliveredTwice = [...receiver.succeeded.values()].filter((n) => n > 1).length;
  return {
    minutes,
    max_creates_per_s: probe.rps,
    rate_creates_per_s: rate,
    rate_gets_per_s: rate * GETS_PER_CREATE,
    per_minute: perMinute,
    summary: {
      window_minutes: window,
      create_p99_first_ms: p99(first, 'creates'),
      create_p99_last_ms: p99(last, 'creates'),
      create_p99_last_to_first: ratio(p99(last, 'creates'), p99(first, 'creates')),
      get_p99_first_ms: p99(first, 'gets'),
      get_p99_last_ms: p99(last, 'gets'),
      get_p99_last_to_first: ratio(p99(last, 'gets'), p99(first, 'gets')),
      backlog_max_first: Math.max(...first.map((r) => r.delivery_backlog)),
      backlog_max_last: Math.max(...last.map((r) => r.delivery_backlog)),
      rss_first_mib: median(first.map((r) => r.rss_mib)),
      rss_last_mib: median(last.map((r) => r.rss_mib)),
      peak_rss_mib: peak,
      dead_rows_last: last.at(-1)?.dead_rows ?? 0,
      payments_created: known.length,
      payments_succeeded: Number(succeededRows.rows[0]?.n ?? 0),
      succeeded_delivered: receiver.succeeded.size,
      succeeded_delivered_twice: deliveredTwice,
      bad_signatures: receiver.badSignatures(),
      pay_failures: payFailures,
    },
  };
}
