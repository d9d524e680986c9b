/**
 * The operator read API at one million payments (issue 5). Seeds the database with
 * bench/seed-million.ts, starts the gateway as its own process on it, and times each admin
 * read over real HTTP: sequential requests after a warm-up, p50/p99 in milliseconds.
 *
 *   npm run bench -- admin                 (as a scenario of bench/run.ts)
 *   tsx bench/admin.ts                     (alone; writes bench/results/admin-<time>.json)
 *   BENCH_ADMIN_DB=<url> tsx bench/admin.ts   (an already seeded database: no seeding)
 *
 * To compare two versions, each on its own seeded database, interleaved: bench/admin-compare.ts.
 *
 * Settings: BENCH_ADMIN_REQUESTS (per endpoint, default 200), BENCH_ADMIN_SPREAD_DAYS
 * (days the payments are spread over, default 365).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { ADMIN_TOKEN, benchDatabase, machine, startGatewayProcess } from './lib/env.js';
import { DEFAULT_SEED, seedMillion } from './seed-million.js';

interface Timing {
  requests: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  max_ms: number;
  bytes: number;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, i)] ?? 0) * 100) / 100;
}

async function timeGet(base: string, path: string, n: number): Promise<Timing> {
  const get = async () => {
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
    return text.length;
  };
  for (let i = 0; i < Math.min(20, n); i++) await get();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    bytes = await get();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return {
    requests: n,
    p50_ms: percentile(times, 50),
    p99_ms: percentile(times, 99),
    mean_ms: Math.round((times.reduce((s, t) => s + t, 0) / n) * 100) / 100,
    max_ms: Math.round((times[times.length - 1] ?? 0) * 100) / 100,
    bytes,
  };
}

/** Times every read on a seeded database; seeds it first unless told it is seeded. */
export async function benchAdminOn(
  databaseUrl: string,
  opts: { seed: boolean; requests: number; spreadDays: number },
): Promise<Record<string, unknown>> {
  const seed = { ...DEFAULT_SEED, spreadDays: opts.spreadDays };
  const seeded = opts.seed
    ? await seedMillion(databaseUrl, seed, (m) => console.log(`[seed] ${m}`))
    : 'given';
  // Simulators off: balances then shows calculated figures only (no provider calls timed).
  const gw = await startGatewayProcess(databaseUrl, { SIMULATORS: 'off' });
  try {
    // The first read after seeding materializes the daily rollup of every closed day it covers.
    const cold = async (path: string) => {
      const t0 = performance.now();
      const res = await fetch(gw.url + path, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      await res.text();
      return Math.round((performance.now() - t0) * 100) / 100;
    };
    const firstRequests = {
      summary_30d_ms: await cold('/admin/summary'),
      summary_366d_ms: await cold('/admin/summary?days=366'),
      balances_ms: await cold('/admin/balances'),
    };
    console.log(`first requests (rollup materialization): ${JSON.stringify(firstRequests)}`);
    const page = await fetch(`${gw.url}/admin/payments?limit=100`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const payments = ((await page.json()) as { payments: { id: string }[] }).payments;
    const last = payments[payments.length - 1]?.id ?? '';
    const some = payments[0]?.id ?? '';
    // Search terms of the seed: payment g has external_user_id buyer-(g % 50000), provider_ref
    // seed-g, and every payment the same email.
    const seedId = (g: number) => createHash('md5').update(`seed-payment-${g}`).digest('hex');
    const endpoints: [string, string][] = [
      ['summary_30d', '/admin/summary'],
      ['summary_30d_mode_live', '/admin/summary?days=30&mode=live'],
      ['timeseries_30d', '/admin/timeseries?days=30'],
      ['timeseries_30d_mode_test', '/admin/timeseries?days=30&mode=test'],
      ['payments_first_page', '/admin/payments'],
      ['payments_first_page_mode_sandbox', '/admin/payments?mode=sandbox'],
      ['payments_first_page_status_failed', '/admin/payments?status=failed'],
      ['payments_second_page', `/admin/payments?before=${last}`],
      ['search_id_prefix', `/admin/payments?q=${seedId(424242).slice(0, 10)}`],
      ['search_external_user_id', '/admin/payments?q=buyer-4242'],
      ['search_email_every_payment', '/admin/payments?q=buyer%40example.com'],
      ['search_provider_ref', '/admin/payments?q=seed-424242'],
      ['search_invoice_number_none', '/admin/payments?q=INV-000001'],
      ['search_app_id', '/admin/payments?app_id=app_seed_live_a'],
      ['search_created_range', '/admin/payments?created_from=2026-01-01&created_to=2026-02-01'],
      ['search_amount_range', '/admin/payments?amount_min=10000&amount_max=20000'],
      [
        'search_combined',
        '/admin/payments?q=buyer-4242&app_id=app_seed_test_a&status=succeeded&amount_min=100',
      ],
      ['stuck', '/admin/stuck'],
      ['audit_first_page', '/admin/audit'],
      ['audit_action', '/admin/audit?action=payment.sync'],
      ['audit_target', `/admin/audit?target_id=${seedId(4242)}`],
      ['refunds_first_page', '/admin/refunds'],
      ['refunds_first_page_mode_live', '/admin/refunds?mode=live'],
      ['payment_detail', `/admin/payments/${some}`],
      ['ledger_first_page', '/admin/ledger'],
      ['ledger_type_late_charge_refund', '/admin/ledger?type=late_charge_refund'],
      ['disputes_first_page', '/admin/disputes'],
      ['summary_366d', '/admin/summary?days=366'],
      ['timeseries_366d', '/admin/timeseries?days=366'],
      ['balances_all_time', '/admin/balances'],
    ];
    const timings: Record<string, Timing & { path: string }> = {};
    for (const [name, path] of endpoints) {
      timings[name] = { path, ...(await timeGet(gw.url, path, opts.requests)) };
      console.log(
        `${name.padEnd(36)} p50 ${String(timings[name].p50_ms).padStart(7)} ms  p99 ${String(
          timings[name].p99_ms,
        ).padStart(7)} ms`,
      );
    }
    return {
      seed: seeded,
      spread_days: opts.spreadDays,
      first_requests: firstRequests,
      timings,
    };
  } finally {
    await gw.stop();
  }
}

/** The bench/run.ts scenario: a fresh database, seeded here. */
export async function benchAdmin(db: { url: string }): Promise<Record<string, unknown>> {
  return benchAdminOn(db.url, {
    seed: true,
    requests: Number(process.env.BENCH_ADMIN_REQUESTS ?? 200),
    spreadDays: Number(process.env.BENCH_ADMIN_SPREAD_DAYS ?? DEFAULT_SEED.spreadDays),
  });
}

async function main() {
  const given = process.env.BENCH_ADMIN_DB;
  const db = given
    ? { url: given, close: async () => undefined }
    : await benchDatabase('paygate_bench_admin');
  try {
    const result = await benchAdminOn(db.url, {
      seed: !given,
      requests: Number(process.env.BENCH_ADMIN_REQUESTS ?? 200),
      spreadDays: Number(process.env.BENCH_ADMIN_SPREAD_DAYS ?? DEFAULT_SEED.spreadDays),
    });
    const out = { date: new Date().toISOString(), machine: machine(), admin: result };
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/admin-${out.date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    console.log(`results written to ${file}`);
  } finally {
    await db.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
