/**
 * Reconciliation and the CSV export at size (issue 27), over real HTTP against the gateway as
 * its own process:
 *
 * 1. A day of RECON_PAYMENTS (default 100,000) succeeded idr_psp payments and a tenth as many
 *    refunds, booked in the ledger; the day's settlement file (about 110,000 rows, 0.1 % of
 *    them drifted: amounts changed, rows dropped, unknown charges) is uploaded and the day is
 *    reconciled. Times of the upload and the run, the items found, and the gateway's peak
 *    resident memory over its idle start. Reference measured in the same run: reading the
 *    day's ledger movements with one plain query from this process.
 * 2. The ledger export of a month: EXPORT_PAYMENTS (default 1,250,000) payments over 30 days
 *    (bench/seed-million.ts; about a million ledger entries), `GET /admin/ledger/export.csv`
 *    read as a stream; time, bytes, lines, and the gateway's peak memory over its idle start.
 *    Reference: the same rows read through a plain cursor from this process.
 *
 *   npm run bench -- reconciliation       (writes into the run's JSON)
 *   tsx bench/reconciliation.ts           (alone; bench/results/reconciliation-<time>.json)
 *   EXPORT_PAYMENTS=0 tsx bench/reconciliation.ts   (the day only)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { formatProviderTime } from '../src/providers/idr_psp/wire.js';
import { ADMIN_TOKEN, benchDatabase, machine, startGatewayProcess, type Proc } from './lib/env.js';
import { migrate } from '../src/db/migrate.js';
import { seedMillion } from './seed-million.js';

/** A fresh migrated database beside the given one, on the same server. */
async function siblingDatabase(url: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: u.toString(), max: 1 });
  await migrate(pool);
  await pool.end();
  return u.toString();
}

const HEADER =
  'order_id,transaction_id,refund_key,transaction_type,payment_type,transaction_status,transaction_time,settlement_time,currency,gross_amount,fee_amount,net_amount';
const DAY_MS = 86_400_000;

const ms = (t0: number) => Math.round(performance.now() - t0);

/** A day of idr_psp payments and refunds in test mode, booked in the ledger. */
async function seedDay(c: pg.Client, day: string, payments: number): Promise<void> {
  await c.query(
    `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
       allowed_providers, allowed_methods)
     VALUES ('app_bench_recon', 'Bench', 'test', 'pk_bench_recon', 'x', 'x', '{idr_psp}', '{}')`,
  );
  await c.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, email, return_url, metadata, last_error, finalized_at,
       created_at, updated_at)
     SELECT md5('recon-' || g), 'app_bench_recon', 'test', 'succeeded', 10000 + (g * 37) % 990000,
       'IDR', 'qris', 'idr_psp', md5('recon-tx-' || g), 'buyer', 'b@example.com',
       'https://shop.example/', '{}', '',
       $1::date + ((g::bigint * 86399) / $2 || ' seconds')::interval,
       $1::date + ((g::bigint * 86399) / $2 || ' seconds')::interval - interval '1 minute',
       $1::date + ((g::bigint * 86399) / $2 || ' seconds')::interval
     FROM generate_series(1, $2::int) g`,
    [day, payments],
  );
  await c.query(
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
       provider_ref, reason, last_error, succeeded_at, created_at, updated_at)
     SELECT md5('recon-refund-' || p.id), p.id, p.app_id, p.mode, 'succeeded', p.amount_minor / 2,
       'IDR', 'idr_psp', md5('recon-refund-' || p.id), '', '',
       least(p.finalized_at + interval '1 minute', $1::date + interval '1 day' - interval '1 second'),
       p.finalized_at, p.finalized_at
     FROM payments p WHERE p.app_id = 'app_bench_recon' AND abs(hashtext(p.id)) % 10 = 0`,
    [day],
  );
  await c.query('SELECT ledger_backfill()');
  await c.query('VACUUM ANALYZE payments, refunds, ledger_entries');
}

/** The provider's file of the day: every movement, with one in a thousand drifted. */
async function settlementFile(c: pg.Client): Promise<{ body: string; drifted: number }> {
  const res = await c.query<{
    id: string;
    ref: string;
    amount: string;
    at: Date;
    refund_ref: string | null;
    refund_amount: string | null;
    refund_at: Date | null;
  }>(
    `SELECT p.id, p.provider_ref AS ref, p.amount_minor::text AS amount, p.finalized_at AS at,
       r.provider_ref AS refund_ref, r.amount_minor::text AS refund_amount,
       r.succeeded_at AS refund_at
     FROM payments p LEFT JOIN refunds r ON r.payment_id = p.id
     WHERE p.app_id = 'app_bench_recon' ORDER BY p.finalized_at`,
  );
  const lines = [HEADER];
  let drifted = 0;
  res.rows.forEach((p, i) => {
    const t = formatProviderTime(p.at.getTime());
    const drift = i % 1000;
    if (drift === 1) {
      drifted++;
      return; // a row dropped
    }
    const gross = Number(p.amount) + (drift === 2 ? 100 : 0);
    const fee = Math.round((gross * 7) / 1000);
    if (drift === 2) drifted++;
    lines.push(
      `${p.id},${p.ref},,payment,qris,settlement,${t},${t},IDR,${gross}.00,${fee}.00,${gross - fee}`,
    );
    if (drift === 3) {
      drifted++;
      lines.push(
        `unknown-${i},${p.ref}-x,,payment,qris,settlement,${t},${t},IDR,${gross}.00,${fee}.00,${gross - fee}`,
      );
    }
    if (p.refund_ref && p.refund_at && p.refund_amount) {
      const rt = formatProviderTime(p.refund_at.getTime());
      lines.push(
        `${p.id},${p.ref},${p.refund_ref},refund,qris,settlement,${rt},${rt},IDR,${p.refund_amount}.00,0.00,-${p.refund_amount}`,
      );
    }
  });
  return { body: lines.join('\r\n') + '\r\n', drifted };
}

async function admin(gw: Proc, method: string, path: string, body?: string, type?: string) {
  const res = await fetch(gw.url + path, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(type ? { 'content-type': type } : {}),
    },
    body,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function benchRun(url: string, payments: number): Promise<Record<string, unknown>> {
  const day = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let t0 = performance.now();
  await seedDay(c, day, payments);
  const seedMs = ms(t0);
  const file = await settlementFile(c);
  // Reference: the day's ledger movements read with one plain query.
  t0 = performance.now();
  const ref = await c.query(
    `SELECT l.id, l.type, l.payment_id, p.provider_ref, r.provider_ref, l.currency, l.amount_minor,
       l.occurred_at FROM ledger_entries l JOIN payments p ON p.id = l.payment_id
       LEFT JOIN refunds r ON r.id = l.refund_id
     WHERE l.provider = 'idr_psp' AND l.mode = 'test'
       AND l.occurred_at >= $1::date - interval '1 day' AND l.occurred_at < $1::date + interval '2 days'`,
    [day],
  );
  const referenceMs = ms(t0);
  await c.end();

  const gw = await startGatewayProcess(url, { SIMULATORS: 'off', RECONCILIATION_DAILY: 'false' });
  try {
    await admin(gw, 'GET', `/admin/reconciliation?provider=idr_psp&mode=test&date=${day}`);
    const idle = gw.peakRssMiB();
    t0 = performance.now();
    const imp = await admin(
      gw,
      'POST',
      `/admin/reconciliation/imports?provider=idr_psp&mode=test&date=${day}`,
      file.body,
      'text/csv',
    );
    const uploadMs = ms(t0);
    const afterUpload = gw.peakRssMiB();
    t0 = performance.now();
    const run = await admin(
      gw,
      'POST',
      '/admin/reconciliation/runs',
      JSON.stringify({ provider: 'idr_psp', date: day, mode: 'test' }),
      'application/json',
    );
    const runMs = ms(t0);
    const items = run.items as { kind: string }[];
    const kinds: Record<string, number> = {};
    for (const i of items) kinds[i.kind] = (kinds[i.kind] ?? 0) + 1;
    return {
      payments,
      ledger_rows_read_by_reference: ref.rowCount,
      file_rows: imp.row_count,
      file_mb: Math.round(Buffer.byteLength(file.body) / 1e5) / 10,
      drifted_rows: file.drifted,
      seed_ms: seedMs,
      upload_ms: uploadMs,
      run_ms: runMs,
      reference_query_ms: referenceMs,
      run_over_reference: Math.round((runMs / Math.max(1, referenceMs)) * 10) / 10,
      status: run.status,
      matched_count: run.matched_count,
      items: kinds,
      gateway_rss_idle_mib: idle,
      gateway_peak_rss_after_upload_mib: afterUpload,
      gateway_peak_rss_after_run_mib: gw.peakRssMiB(),
    };
  } finally {
    await gw.stop();
  }
}

async function benchExport(url: string, payments: number): Promise<Record<string, unknown>> {
  const seeded = await seedMillion(url, { payments, refunds: 100_000, spreadDays: 30 }, (m) =>
    console.log(`[seed] ${m}`),
  );
  const since = new Date(Date.now() - 31 * DAY_MS).toISOString();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const entries = Number(
    (await c.query('SELECT count(*) AS n FROM ledger_entries WHERE occurred_at >= $1', [since]))
      .rows[0].n,
  );
  // Reference: the same rows through a plain cursor in this process, 2,000 at a time.
  let t0 = performance.now();
  await c.query('BEGIN READ ONLY');
  await c.query(
    `DECLARE ref NO SCROLL CURSOR FOR SELECT * FROM ledger_entries WHERE occurred_at >= $1
     ORDER BY occurred_at, id`,
    [since],
  );
  let refRows = 0;
  for (;;) {
    const r = await c.query('FETCH 2000 FROM ref');
    refRows += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < 2000) break;
  }
  await c.query('COMMIT');
  const referenceMs = ms(t0);
  await c.end();

  const gw = await startGatewayProcess(url, { SIMULATORS: 'off', RECONCILIATION_DAILY: 'false' });
  try {
    await admin(gw, 'GET', '/admin/ledger?limit=1');
    const idle = gw.peakRssMiB();
    t0 = performance.now();
    const res = await fetch(
      `${gw.url}/admin/ledger/export.csv?since=${encodeURIComponent(since)}`,
      { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status}`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
    }
    const exportMs = ms(t0);
    return {
      seeded,
      ledger_entries_in_window: entries,
      reference_rows: refRows,
      csv_lines: lines - 1,
      csv_mb: Math.round(bytes / 1e5) / 10,
      export_ms: exportMs,
      reference_cursor_ms: referenceMs,
      export_over_reference: Math.round((exportMs / Math.max(1, referenceMs)) * 10) / 10,
      rows_per_s: Math.round(((lines - 1) / exportMs) * 1000),
      gateway_rss_idle_mib: idle,
      gateway_peak_rss_mib: gw.peakRssMiB(),
    };
  } finally {
    await gw.stop();
  }
}

export async function benchReconciliation(db: { url: string }): Promise<Record<string, unknown>> {
  const payments = Number(process.env.RECON_PAYMENTS ?? 100_000);
  const exportPayments = Number(process.env.EXPORT_PAYMENTS ?? 1_250_000);
  console.log(`[recon] a day of ${payments} payments`);
  const day = await benchRun(db.url, payments);
  console.log(JSON.stringify(day, null, 2));
  if (exportPayments === 0) return { reconcile_day: day };
  console.log(`[export] a month of ${exportPayments} payments`);
  const exported = await benchExport(
    await siblingDatabase(db.url, 'paygate_bench_export'),
    exportPayments,
  );
  return { reconcile_day: day, ledger_export: exported };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const db = await benchDatabase('paygate_bench_reconciliation');
  try {
    const result = {
      date: new Date().toISOString(),
      machine: machine(),
      ...(await benchReconciliation(db)),
    };
    console.log(JSON.stringify(result, null, 2));
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/reconciliation-${result.date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    console.log(`wrote ${file}`);
  } finally {
    await db.close();
  }
}
