/**
 * The soak (npm run bench -- soak): sustained load at a fixed rate for BENCH_SOAK_MINUTES
 * (default 30), reported minute by minute, to see what a 15-second run cannot: latency that
 * creeps, a delivery backlog that grows, memory that does not come back, dead rows piling up.
 *
 * The mix, per second at rate `rate`: `rate` creates (idr_psp QRIS through the simulator), the
 * simulator's pay on 80 % of them (a GET for the provider reference, then the pay action, which
 * notifies the gateway, which finalizes and delivers), and 5 × `rate` signed GETs of known
 * payments. A local receiver checks every delivery's signature and counts `payment.succeeded`
 * per payment, so a lost or doubled delivery shows.
 *
 * The rate is half the maximum of that whole mix, measured at the start of the same run by a
 * stepped probe (creates alone first, for a ceiling; then the mix in 10-second steps from a
 * fifth of that ceiling: halving while no step gets what it offers, 25 % more while every step
 * does, then bisecting between the best rate that held and the lowest that fell short, to
 * within 10 %; bench/lib/probe.ts). The maximum is the best a step that held sustained.
 * BENCH_SOAK_PROBE_FROM sets the first step's rate (to see the probe step down).
 * BENCH_SOAK_RATE overrides it. The gateway's memory is sampled every 10 seconds: RSS from
 * /proc, and V8's heap (used, total, young and old generation) and external memory from its
 * own /metrics, so a growing RSS can be told apart from a growing heap.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { signWebhook } from '../src/delivery/signer.js';
import { ADMIN_TOKEN, startGatewayProcess, type BenchDatabase } from './lib/env.js';
import { load, ratio, type LoadOptions } from './lib/load.js';
import { nextProbeRate, probeMaximum, type ProbeOutcome } from './lib/probe.js';

type Req = NonNullable<LoadOptions['requests']>[number];
import { createApp, type BenchApp } from './lib/seed.js';
import { signedHeaders } from './lib/sign.js';
import type { BenchSettings } from './run.js';

const PAY_SHARE = 0.8;
const GETS_PER_CREATE = 5;
/** Enough loops that paying 80 % keeps up with the creates (8 did not at 222/s). */
const PAYERS = 32;
const PROBE_STEP_S = 10;
/** The goal (issue 29): RSS under load below 200 MB (10^6 bytes), i.e. 190.7 MiB. */
const RSS_GOAL_MIB = 200e6 / 2 ** 20;

/** The gateway's memory at one instant, MiB: the kernel's RSS and V8's own figures. */
interface Memory {
  rss_mib: number;
  heap_used_mib: number;
  heap_total_mib: number;
  new_space_mib: number;
  old_space_mib: number;
  external_mib: number;
}

interface Minute {
  minute: number;
  creates: { rps: number; p50_ms: number; p99_ms: number; non2xx: number; errors: number };
  gets: { rps: number; p50_ms: number; p99_ms: number; non2xx: number; errors: number };
  paid: number;
  delivery_backlog: number;
  rss_mib: number;
  /** The largest RSS sampled during the minute (every 10 s). */
  rss_max_mib: number;
  /** The last /metrics sample of the minute. */
  memory: Memory | null;
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

const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** V8's and the process's memory from the gateway's Prometheus text (prom-client defaults). */
async function memoryOf(url: string, pid: number): Promise<Memory | null> {
  try {
    const res = await fetch(`${url}/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const text = await res.text();
    const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    return {
      rss_mib: rssMiB(pid),
      heap_used_mib: mib(num(/^nodejs_heap_size_used_bytes (\S+)/m)),
      heap_total_mib: mib(num(/^nodejs_heap_size_total_bytes (\S+)/m)),
      new_space_mib: mib(num(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)/m)),
      old_space_mib: mib(num(/^nodejs_heap_space_size_total_bytes\{space="old"\} (\S+)/m)),
      external_mib: mib(num(/^nodejs_external_memory_bytes (\S+)/m)),
    };
  } catch {
    return null;
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

const probeOutcome = (st: ProbeStep): ProbeOutcome => ({
  offered: st.offered_creates_per_s,
  held: st.held,
  mix: st.mix_per_s,
});

interface ProbeStep {
  offered_creates_per_s: number;
  creates_per_s: number;
  gets_per_s: number;
  paid_per_s: number;
  pay_queue: number;
  create_p99_ms: number;
  get_p99_ms: number;
  /** The rate of the whole mix this step sustained: min(creates, GETs / 5). */
  mix_per_s: number;
  held: boolean;
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

  /** The whole mix at `rate` creates/s for `seconds`. */
  const mix = (rate: number, seconds: number) =>
    Promise.all([
      load({
        url: gw.url,
        connections: s.connections,
        duration: seconds,
        overallRate: rate,
        requests: [
          {
            ...createRequest,
            onResponse: (status, body) => {
              if (status !== 201) return;
              const id = (JSON.parse(body) as { payment_id: string }).payment_id;
              known.push(id);
              if (Math.random() < PAY_SHARE) toPay.push(id);
            },
          },
        ],
      }),
      load({
        url: gw.url,
        connections: s.connections,
        duration: seconds,
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

  // A ceiling first: creates alone, closed loop.
  const alone = await load({
    url: gw.url,
    connections: s.connections,
    duration: PROBE_STEP_S,
    requests: [
      {
        ...createRequest,
        onResponse: (status, body) => {
          if (status === 201) known.push((JSON.parse(body) as { payment_id: string }).payment_id);
        },
      },
    ],
  });
  const payers = Array.from({ length: PAYERS }, payLoop);
  // Then the whole mix, stepped (bench/lib/probe.ts): down by halves while no step holds,
  // up by a quarter while every step holds, then bisecting between a rate that held and one
  // that fell short.
  const steps: ProbeStep[] = [];
  // The first step's rate, to try a start that falls short (default: a fifth of the ceiling).
  const from = process.env.BENCH_SOAK_PROBE_FROM
    ? Number(process.env.BENCH_SOAK_PROBE_FROM)
    : undefined;
  for (
    let offered = nextProbeRate(alone.rps, [], from);
    offered !== null;
    offered = nextProbeRate(alone.rps, steps.map(probeOutcome), from)
  ) {
    // Let the payers catch up before each step (a step that fell short leaves a queue).
    while (toPay.length > 0) await new Promise((r) => setTimeout(r, 100));
    const paidBefore = paid;
    const [creates, gets] = await mix(offered, PROBE_STEP_S);
    const step: ProbeStep = {
      offered_creates_per_s: offered,
      creates_per_s: creates.rps,
      gets_per_s: gets.rps,
      paid_per_s: Math.round((paid - paidBefore) / PROBE_STEP_S),
      pay_queue: toPay.length,
      create_p99_ms: creates.p99_ms,
      get_p99_ms: gets.p99_ms,
      mix_per_s: Math.min(creates.rps, Math.round(gets.rps / GETS_PER_CREATE)),
      held:
        creates.rps >= 0.95 * offered &&
        gets.rps >= 0.95 * offered * GETS_PER_CREATE &&
        // The payers keep up: no more than a second's payments waiting.
        toPay.length <= offered,
    };
    steps.push(step);
    console.log(
      `probe: offered ${offered} creates/s: ${creates.rps} creates/s, ${gets.rps} GETs/s, ` +
        `${step.paid_per_s} paid/s, pay queue ${toPay.length}, ` +
        `create p99 ${creates.p99_ms} ms${step.held ? '' : ' (saturated)'}`,
    );
  }
  const maximum = probeMaximum(steps.map(probeOutcome));
  const maxMix = maximum.mix;
  if (!maximum.held) {
    console.log(`probe: no step held, down to ${steps.at(-1)?.offered_creates_per_s} creates/s`);
  }
  const rate = Number(process.env.BENCH_SOAK_RATE ?? Math.max(1, Math.round(maxMix / 2)));
  console.log(
    `soak: maximum ${alone.rps} creates/s alone, ${maxMix}/s for the whole mix; ` +
      `soaking at ${rate} creates/s and ${rate * GETS_PER_CREATE} GETs/s for ${minutes} min`,
  );
  while (toPay.length > 0) await new Promise((r) => setTimeout(r, 100));

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const pid = gw.child.pid as number;
  // Memory every 10 seconds, for the whole soak.
  const samples: { at: number; memory: Memory }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const memory = await memoryOf(gw.url, pid);
      if (memory) samples.push({ at: Date.now(), memory });
      await new Promise((r) => setTimeout(r, 10_000));
    }
  })();
  const perMinute: Minute[] = [];
  for (let minute = 1; minute <= minutes; minute++) {
    const paidBefore = paid;
    const from = Date.now();
    const [creates, gets] = await mix(rate, 60);
    const inMinute = samples.filter((x) => x.at >= from).map((x) => x.memory);
    const rss = rssMiB(pid);
    const row: Minute = {
      minute,
      creates,
      gets,
      paid: paid - paidBefore,
      rss_mib: rss,
      rss_max_mib: Math.max(rss, ...inMinute.map((m) => m.rss_mib)),
      memory: inMinute.at(-1) ?? null,
      ...(await sample(client)),
    };
    perMinute.push(row);
    const m = row.memory;
    console.log(
      `minute ${minute}: create p99 ${creates.p99_ms} ms, get p99 ${gets.p99_ms} ms, ` +
        `backlog ${row.delivery_backlog}, rss ${row.rss_mib} MiB (max ${row.rss_max_mib}), ` +
        (m
          ? `heap ${m.heap_used_mib}/${m.heap_total_mib} MiB (new ${m.new_space_mib}, ` +
            `old ${m.old_space_mib}), external ${m.external_mib} MiB, `
          : '') +
        `dead rows ${row.dead_rows}`,
    );
  }
  sampling = false;
  await sampler;
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
  const rssFirst = median(first.map((r) => r.rss_mib));
  const rssLast = median(last.map((r) => r.rss_mib));
  const rssMaxSampled = Math.max(...perMinute.map((r) => r.rss_max_mib));
  const backlogLast = Math.max(...last.map((r) => r.delivery_backlog));
  const summary = {
    window_minutes: window,
    create_p99_first_ms: p99(first, 'creates'),
    create_p99_last_ms: p99(last, 'creates'),
    create_p99_last_to_first: ratio(p99(last, 'creates'), p99(first, 'creates')),
    get_p99_first_ms: p99(first, 'gets'),
    get_p99_last_ms: p99(last, 'gets'),
    get_p99_last_to_first: ratio(p99(last, 'gets'), p99(first, 'gets')),
    backlog_max_first: Math.max(...first.map((r) => r.delivery_backlog)),
    backlog_max_last: backlogLast,
    rss_first_mib: rssFirst,
    rss_last_mib: rssLast,
    rss_max_sampled_mib: rssMaxSampled,
    peak_rss_mib: peak,
    heap_used_first_mib: median(first.map((r) => r.memory?.heap_used_mib ?? 0)),
    heap_used_last_mib: median(last.map((r) => r.memory?.heap_used_mib ?? 0)),
    dead_rows_last: last.at(-1)?.dead_rows ?? 0,
    payments_created: known.length,
    payments_succeeded: Number(succeededRows.rows[0]?.n ?? 0),
    succeeded_delivered: receiver.succeeded.size,
    succeeded_delivered_twice: deliveredTwice,
    bad_signatures: receiver.badSignatures(),
    pay_failures: payFailures,
  };
  // Issue 29's goals, each with what it compared.
  const goals = {
    create_p99_last_within_1_2x_first: summary.create_p99_last_to_first <= 1.2,
    get_p99_last_within_1_2x_first: summary.get_p99_last_to_first <= 1.2,
    // Bounded: never more than one second's creates waiting in the last window.
    delivery_backlog_bounded: backlogLast <= rate,
    // Flat: the last window's median within 10 % of the first's.
    rss_flat: rssLast <= rssFirst * 1.1,
    // Every sample (every 10 s) under 200 MB.
    rss_under_200_mb: rssMaxSampled < RSS_GOAL_MIB,
    every_success_delivered_once:
      summary.succeeded_delivered === summary.payments_succeeded && deliveredTwice === 0,
  };
  const yes = (b: boolean) => (b ? 'met' : 'NOT MET');
  console.log(
    [
      `soak goals (first ${window} min against last ${window} min, at ${rate} creates/s, ` +
        `half the mix's maximum of ${maxMix}/s):`,
      `  create p99 ${summary.create_p99_first_ms} -> ${summary.create_p99_last_ms} ms ` +
        `(${summary.create_p99_last_to_first}x, goal <= 1.2x): ${yes(goals.create_p99_last_within_1_2x_first)}`,
      `  GET p99 ${summary.get_p99_first_ms} -> ${summary.get_p99_last_ms} ms ` +
        `(${summary.get_p99_last_to_first}x, goal <= 1.2x): ${yes(goals.get_p99_last_within_1_2x_first)}`,
      `  delivery backlog max ${summary.backlog_max_first} -> ${backlogLast} ` +
        `(goal <= ${rate}, one second of creates): ${yes(goals.delivery_backlog_bounded)}`,
      `  RSS median ${rssFirst} -> ${rssLast} MiB (goal: within 10 %): ${yes(goals.rss_flat)}`,
      `  RSS max sampled ${rssMaxSampled} MiB, peak (VmHWM) ${peak} MiB ` +
        `(goal: samples < 200 MB = 190.7 MiB): ${yes(goals.rss_under_200_mb)}`,
      `  every payment.succeeded delivered exactly once: ${yes(goals.every_success_delivered_once)}`,
    ].join('\n'),
  );
  return {
    minutes,
    max_creates_alone_per_s: alone.rps,
    max_mix_creates_per_s: maxMix,
    /** False when no step held: the maximum is then only what a saturated step reached. */
    max_mix_held: maximum.held,
    probe_steps: steps,
    rate_creates_per_s: rate,
    rate_gets_per_s: rate * GETS_PER_CREATE,
    node_args: process.env.BENCH_NODE_ARGS ?? '',
    per_minute: perMinute,
    summary,
    goals,
  };
}
