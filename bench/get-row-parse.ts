/**
 * node-postgres's client-side cost of a GET's payment row (docs/performance.md, "Create and
 * GET, fourth pass"): a result of the 24 columns of PAYMENT_COLUMNS against one of the 13
 * the Payment answer needs (PaymentReadBatcher), parsed from the text PostgreSQL sends (the
 * row description and one data row per read, as a batched read of one payment gets them),
 * then written by the Payment response schema. No database: pg's own Result class is fed
 * the fields and values. Alternating rounds, process CPU per row.
 *
 *   npx tsx bench/get-row-parse.ts
 */
import os from 'node:os';
import pg from 'pg';
import { serialize } from '../src/domain/serialize.js';

const T = { text: 25, int8: 20, jsonb: 3802, timestamptz: 1184 };
const ALL: [string, number, string | null][] = [
  ['id', T.text, 'f'.repeat(32)],
  ['app_id', T.text, 'app_' + 'a'.repeat(28)],
  ['mode', T.text, 'test'],
  ['status', T.text, 'initiated'],
  ['amount_minor', T.int8, '125000'],
  ['currency', T.text, 'IDR'],
  ['method', T.text, 'qris'],
  ['provider', T.text, 'idr_psp'],
  ['provider_ref', T.text, 'c0ffee00-0000-4000-8000-000000000000'],
  ['external_user_id', T.text, 'buyer-123'],
  ['email', T.text, 'b@example.com'],
  ['return_url', T.text, 'https://shop.example/back'],
  ['metadata', T.jsonb, '{"order": "bench"}'],
  ['invoice_number', T.text, null],
  ['last_error', T.text, ''],
  ['checkout_url', T.text, 'http://127.0.0.1/snap/v4/redirection/c0ffee00'],
  ['qr_string', T.text, null],
  ['qr_image_url', T.text, null],
  ['provider_deadline', T.timestamptz, '2026-11-26 08:15:00.123456+00'],
  ['finalized_at', T.timestamptz, null],
  ['subscription_id', T.text, null],
  ['parent_payment_id', T.text, null],
  ['created_at', T.timestamptz, '2026-11-26 08:00:00.123456+00'],
  ['updated_at', T.timestamptz, '2026-11-26 08:00:01.654321+00'],
];
const READ = new Set([
  'id',
  'app_id',
  'status',
  'amount_minor',
  'currency',
  'method',
  'provider',
  'provider_ref',
  'metadata',
  'invoice_number',
  'last_error',
  'created_at',
  'updated_at',
]);
const NARROW = ALL.filter(([n]) => READ.has(n));

type Result = { addFields(f: unknown[]): void; parseRow(v: (string | null)[]): unknown };
const ResultClass = (pg as unknown as { Result: new () => Result }).Result;

function once(cols: typeof ALL): string {
  const r = new ResultClass();
  r.addFields(cols.map(([name, dataTypeID]) => ({ name, dataTypeID, format: 'text' })));
  const row = r.parseRow(cols.map(([, , v]) => v));
  return serialize('Payment', row);
}

const N = 50_000;
function round(cols: typeof ALL): number {
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) once(cols);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / N;
}

if (once(ALL) !== once(NARROW)) throw new Error('the two answers differ');
round(ALL);
round(NARROW);
const rows: { all: number; narrow: number }[] = [];
for (let i = 0; i < 8; i++) {
  const all = round(ALL);
  const narrow = round(NARROW);
  rows.push({ all, narrow });
  console.log(
    `round ${i + 1}: 24 columns ${all.toFixed(2)} µs, 13 columns ${narrow.toFixed(2)} µs per row (load ${os.loadavg()[0]!.toFixed(1)})`,
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `median: 24 columns ${median(rows.map((r) => r.all)).toFixed(2)} µs, 13 columns ${median(rows.map((r) => r.narrow)).toFixed(2)} µs per row`,
);
