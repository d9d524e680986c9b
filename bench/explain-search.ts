/**
 * The plan and time of every admin payment search filter on a seeded database
 * (bench/seed-million.ts): which indexes each one reads, and its EXPLAIN ANALYZE time (the
 * median of BENCH_EXPLAIN_RUNS warm runs, default 5); pages after a cursor half way back; and
 * each index of payments with its size.
 *
 *   tsx bench/explain-search.ts <database url>
 */
import pg from 'pg';
import { listPaymentRows, type PaymentListFilter } from '../src/db/reportLists.js';
import { parsePaymentSearch } from '../src/domain/paymentSearch.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** Warm runs of each statement; the median is printed (BENCH_EXPLAIN_RUNS, default 5). */
const RUNS = Number(process.env.BENCH_EXPLAIN_RUNS ?? 5);

function scans(node: PlanNode, out: string[] = []): string[] {
  if (node['Node Type'] === 'Incremental Sort') out.push('Incremental Sort');
  if (node['Relation Name'] === 'payments') {
    out.push(node['Index Name'] ?? node['Node Type']);
  } else if (node['Index Name']?.startsWith('payments_')) {
    out.push(node['Index Name']);
  }
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

async function main() {
  const url = process.argv[2];
  if (!url) throw new Error('usage: tsx bench/explain-search.ts <database url>');
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const sample = (
    await db.query<{ email: string; external_user_id: string; id: string; app_id: string }>(
      `SELECT email, external_user_id, id, app_id FROM payments ORDER BY created_at LIMIT 1`,
    )
  ).rows[0]!;
  // A cursor half way back: the pages after it start deep in each index.
  const middle = (
    await db.query<{ id: string }>(
      `SELECT id FROM payments ORDER BY created_at DESC, id DESC
       OFFSET (SELECT count(*) / 2 FROM payments) LIMIT 1`,
    )
  ).rows[0]!.id;
  const day = new Date(Date.now() - 100 * 86_400_000);
  const cases: [string, Record<string, string>, Partial<PaymentListFilter>][] = [
    ['no filter', {}, {}],
    ['mode=live', {}, { mode: 'live' }],
    ['status=succeeded', {}, { status: 'succeeded' }],
    ['status=failed', {}, { status: 'failed' }],
    ['status=canceled', {}, { status: 'canceled' }],
    ['status=initiated', {}, { status: 'initiated' }],
    ['app_id', { app_id: sample.app_id }, {}],
    ['app_id + status=failed', { app_id: sample.app_id }, { status: 'failed' }],
    [
      'created one day',
      { created_from: day.toISOString(), created_to: new Date(+day + 86_400_000).toISOString() },
      {},
    ],
    ['q=email', { q: sample.email }, {}],
    ['q=external_user_id', { q: sample.external_user_id }, {}],
    ['q=id prefix', { q: sample.id.slice(0, 10) }, {}],
    ['q=no match', { q: 'nobody@example.com' }, {}],
    ['amount_min high (few rows)', { amount_min: '999900' }, {}],
    ['amount_max low (few rows)', { amount_max: '150' }, {}],
    ['amount range (no row)', { amount_min: '1000000', amount_max: '2000000' }, {}],
    ['amount_min high + status=failed', { amount_min: '999000' }, { status: 'failed' }],
    ['amount_min high + mode=live', { amount_min: '999000' }, { mode: 'live' }],
    ['amount_max low + app_id', { amount_max: '1000', app_id: sample.app_id }, {}],
    ['amount wide (half the rows)', { amount_min: '500000' }, {}],
    ['deep page', {}, { before: middle }],
    ['deep page + mode=live', {}, { mode: 'live', before: middle }],
    ['deep page + status=failed', {}, { status: 'failed', before: middle }],
    ['deep page + app_id', { app_id: sample.app_id }, { before: middle }],
    ['deep page + q=email', { q: sample.email }, { before: middle }],
    ['deep page + q=external_user_id', { q: sample.external_user_id }, { before: middle }],
    [
      'deep page + created one day',
      { created_from: day.toISOString(), created_to: new Date(+day + 86_400_000).toISOString() },
      { before: middle },
    ],
  ];
  for (const [name, query, extra] of cases) {
    const filter: PaymentListFilter = {
      mode: null,
      status: null,
      before: null,
      limit: 50,
      search: parsePaymentSearch(query),
      ...extra,
    };
    let plan: { Plan: PlanNode; 'Execution Time': number } | undefined;
    const explain = {
      query: async (text: string, values: unknown[]) => {
        await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values); // warm
        // The median of RUNS warm runs (a shared machine's single run can be far off).
        const runs: NonNullable<typeof plan>[] = [];
        for (let i = 0; i < RUNS; i++) {
          const res = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
          runs.push((res.rows[0] as { 'QUERY PLAN': [NonNullable<typeof plan>] })['QUERY PLAN'][0]);
        }
        runs.sort((a, b) => a['Execution Time'] - b['Execution Time']);
        plan = runs[Math.floor(runs.length / 2)];
        return { rows: [] };
      },
    };
    await listPaymentRows(explain as never, filter);
    const used = [...new Set(scans(plan!.Plan))].join(', ');
    // Pages read (shared buffers hit or read, the whole statement): what the plan costs,
    // independent of the machine's load.
    const top = plan!.Plan;
    const pages = (top['Shared Hit Blocks'] ?? 0) + (top['Shared Read Blocks'] ?? 0);
    console.log(
      `${name.padEnd(34)} ${plan!['Execution Time'].toFixed(2).padStart(8)} ms ${String(pages).padStart(6)} pages  ${used}`,
    );
  }
  // Each index of payments and what it takes per payment (after a build, not a run's inserts).
  const sizes = await db.query<{ name: string; bytes: string; per: string }>(
    `SELECT indexrelname AS name, pg_relation_size(indexrelid) AS bytes,
       round(pg_relation_size(indexrelid)::numeric / greatest(1, (SELECT count(*) FROM payments)), 1) AS per
     FROM pg_stat_user_indexes WHERE relname = 'payments' ORDER BY 2 DESC`,
  );
  for (const r of sizes.rows) {
    console.log(
      `${r.name.padEnd(40)} ${(Number(r.bytes) / 2 ** 20).toFixed(1).padStart(8)} MiB ${r.per.padStart(7)} B/payment`,
    );
  }
  await db.end();
}

void main();
