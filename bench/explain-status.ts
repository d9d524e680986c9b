/**
 * Whether the admin payment search's status filter keeps its plan across statistics samples:
 * ANALYZE payments ROUNDS times (default 8) and, after each, EXPLAIN (ANALYZE, BUFFERS) the
 * statement built for every status, alone and with a created range, a cursor, an app, a mode
 * or an amount range; prints, for each search, the indexes its plans read (how many rounds
 * each), the pages read (least and most) and the time (median and most).
 *
 *   tsx bench/explain-status.ts <database url> [rounds=8]
 *
 * It runs ANALYZE (a write of statistics): never on a database you must not touch. With
 * BENCH_STATUS_NO_ANALYZE=1 it only EXPLAINs, once (EXPLAIN ANALYZE of the statements, reads
 * only, in read-only transactions with a 20 s statement timeout).
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

function scans(node: PlanNode, out: string[] = []): string[] {
  // A sort of the rows a scan of payments read (not of a page's few rows above it).
  if (node['Node Type'] === 'Sort' && node.Plans?.some((c) => c['Relation Name'] === 'payments')) {
    out.push('Sort');
  }
  if (node['Relation Name'] === 'payments' || node['Index Name']?.startsWith('payments_')) {
    out.push(node['Index Name'] ?? node['Node Type']);
  }
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

async function main() {
  const url = process.argv[2];
  if (!url) throw new Error('usage: tsx bench/explain-status.ts <database url> [rounds=8]');
  const analyze = process.env.BENCH_STATUS_NO_ANALYZE !== '1';
  const rounds = analyze ? Number(process.argv[3] ?? 8) : 1;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  if (!analyze) {
    await db.query('SET default_transaction_read_only = on');
    await db.query(`SET statement_timeout = '20s'`);
  }
  const middle = (
    await db.query<{ id: string }>(
      `SELECT id FROM payments WHERE created_at < now() - interval '182 days'
       ORDER BY created_at DESC, id DESC LIMIT 1`,
    )
  ).rows[0]!.id;
  const app = (await db.query<{ id: string }>(`SELECT app_id AS id FROM payments LIMIT 1`)).rows[0]!
    .id;
  const now = Date.now();
  const ago = (days: number) => day(new Date(now - days * 86_400_000));
  const created: [string, Record<string, string>, Partial<PaymentListFilter>][] = [
    ['', {}, {}],
    ['last week', { created_from: ago(7) }, {}],
    ['one day', { created_from: ago(100), created_to: ago(99) }, {}],
    ['one month', { created_from: ago(130), created_to: ago(100) }, {}],
    ['no row', { created_from: '2020-01-01', created_to: '2020-02-01' }, {}],
    ['cursor', {}, { before: middle }],
    ['cursor in month', { created_from: ago(200), created_to: ago(170) }, { before: middle }],
    ['cursor + month', { created_from: ago(230), created_to: ago(200) }, { before: middle }],
  ];
  const other: [string, Record<string, string>, Partial<PaymentListFilter>][] = [
    ['', {}, {}],
    ['app', { app_id: app }, {}],
    ['mode=live', {}, { mode: 'live' }],
    ['amount few', { amount_min: '999900' }, {}],
  ];
  const cases: [string, PaymentListFilter][] = [];
  for (const status of ['initiated', 'failed', 'canceled', 'succeeded']) {
    for (const [cn, cq, cx] of created) {
      for (const [on, oq, ox] of other) {
        const name = [`status=${status}`, cn, on].filter(Boolean).join(' + ');
        cases.push([
          name,
          {
            mode: null,
            status,
            before: null,
            limit: 50,
            search: parsePaymentSearch({ ...cq, ...oq }),
            ...cx,
            ...ox,
          },
        ]);
      }
    }
  }
  interface Seen {
    plans: Map<string, number>;
    pages: number[];
    ms: number[];
  }
  const seen = new Map<string, Seen>();
  // BENCH_STATUS_MATCH=<regexp>: only the searches whose name matches.
  const match = new RegExp(process.env.BENCH_STATUS_MATCH ?? '');
  for (let round = 0; round < rounds; round++) {
    if (analyze) await db.query('ANALYZE payments');
    for (const [name, filter] of cases) {
      if (!match.test(name)) continue;
      let plan: { Plan: PlanNode; 'Execution Time': number } | undefined;
      const explain = {
        query: async (text: string, values: unknown[]) => {
          // The page's statement (a cursor's bound may be read before it, as it is).
          if (!text.startsWith('SELECT p.*')) return db.query(text, values);
          const res = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
          plan = (res.rows[0] as { 'QUERY PLAN': [NonNullable<typeof plan>] })['QUERY PLAN'][0];
          return { rows: [] };
        },
      };
      await listPaymentRows(explain as never, filter);
      const s: Seen = seen.get(name) ?? { plans: new Map(), pages: [], ms: [] };
      const used = [...new Set(scans(plan!.Plan))].join(', ');
      s.plans.set(used, (s.plans.get(used) ?? 0) + 1);
      const top = plan!.Plan;
      s.pages.push((top['Shared Hit Blocks'] ?? 0) + (top['Shared Read Blocks'] ?? 0));
      s.ms.push(plan!['Execution Time']);
      seen.set(name, s);
    }
    process.stderr.write(`round ${round + 1}/${rounds}\n`);
  }
  for (const [name, s] of seen) {
    s.ms.sort((a, b) => a - b);
    const plans = [...s.plans].map(([p, n]) => `${n}× ${p}`).join(' | ');
    console.log(
      `${name.padEnd(46)} pages ${String(Math.min(...s.pages)).padStart(6)}–${String(Math.max(...s.pages)).padEnd(6)} ms ${s.ms[Math.floor(s.ms.length / 2)]!.toFixed(2).padStart(7)} / ${s.ms[s.ms.length - 1]!.toFixed(2).padStart(7)}  ${plans}`,
    );
  }
  await db.end();
}

void main();
