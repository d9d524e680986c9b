/**
 * The plan and time of every admin payment search filter on a seeded database
 * (bench/seed-million.ts): which indexes each one reads, and its EXPLAIN ANALYZE time.
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
  Plans?: PlanNode[];
}

function scans(node: PlanNode, out: string[] = []): string[] {
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
        await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values); // warm
        const res = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
        plan = (res.rows[0] as { 'QUERY PLAN': [typeof plan] })['QUERY PLAN'][0];
        return { rows: [] };
      },
    };
    await listPaymentRows(explain as never, filter);
    const used = [...new Set(scans(plan!.Plan))].join(', ');
    console.log(`${name.padEnd(34)} ${plan!['Execution Time'].toFixed(2).padStart(8)} ms  ${used}`);
  }
  await db.end();
}

void main();
