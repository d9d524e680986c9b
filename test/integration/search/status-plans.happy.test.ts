import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { listPaymentPage, type PaymentListFilter } from '../../../src/db/paymentScan.js';
import { parsePaymentSearch } from '../../../src/domain/paymentSearch.js';
import { createTestDatabase } from '../../helpers/db.js';
import { type PlanNode, insertPlansApp } from '../../helpers/plans.js';

// Issue 29: GET /admin/payments filtered by a rarer status (initiated, failed, canceled) reads
// payments_unsucceeded_created_id_idx, keyed by the status and the created range, in the
// list's order. With `status = 'initiated'` as a plain constant the planner could instead read
// the reconciler's partial index on provider_deadline (WHERE status = 'initiated') from end to
// end and sort: every initiated payment for one page. It did whenever the statistics sample
// held two or more of the few initiated payments that have a deadline, in table order (their
// correlation then says 1: the index looks sequential). And a cursor with created_from made
// the date index look narrower than the status index. Both are set up here: the table is small
// enough for ANALYZE to read every row, so the statistics are the same on every run.

const TOTAL = 20_000;
const DAY = 86_400_000;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;

/** The indexes of payments a plan reads (index, index-only and bitmap scans), or "Seq Scan". */
function paymentIndexes(node: PlanNode, out = new Set<string>()): Set<string> {
  if (node['Index Name']?.startsWith('payments_')) out.add(node['Index Name']);
  else if (node['Relation Name'] === 'payments' && node['Node Type'] === 'Seq Scan') {
    out.add('Seq Scan');
  }
  for (const child of node.Plans ?? []) paymentIndexes(child, out);
  return out;
}

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  // The statistics stay what the test makes them.
  await pool.query(`ALTER TABLE payments SET (autovacuum_enabled = off)`);
  await insertPlansApp(pool);
  // Many initiated payments (a provider outage), in runs of the table as the seed makes them;
  // creation times spread over a year in no relation to the table's order; three initiated
  // payments with a provider deadline, in table order.
  await pool.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, email, return_url, metadata, finalized_at,
       provider_deadline, created_at)
     SELECT md5(g::text), 'app_plans', 'test', s.status, 1000 + g % 5000, 'IDR', 'qris',
       'idr_psp', 'ref-' || g, 'buyer-' || g, 'b@example.com', 'https://shop.example/', '{}',
       CASE WHEN s.status = 'initiated' THEN NULL ELSE now() END,
       CASE WHEN g IN (1001, 5001, 9001) THEN now() + g * interval '1 second' END,
       now() - ((g::bigint * 2654435761) % (365 * 86400)) * interval '1 second'
     FROM generate_series(1, $1) g
     CROSS JOIN LATERAL (SELECT CASE WHEN g % 100 < 40 THEN 'initiated'
       WHEN g % 100 < 80 THEN 'succeeded' WHEN g % 100 < 90 THEN 'failed'
       ELSE 'canceled' END AS status) s`,
    [TOTAL],
  );
  await pool.query('VACUUM ANALYZE payments');
});

after(async () => {
  await pool?.end();
  await db?.drop();
});

const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

function filter(
  status: string,
  search: Record<string, string>,
  o: Partial<PaymentListFilter> = {},
): PaymentListFilter {
  return { mode: null, status, before: null, limit: 50, search: parsePaymentSearch(search), ...o };
}

/** The indexes of payments the plan of a page's statement reads. */
async function indexesOf(f: PaymentListFilter): Promise<string[]> {
  let plan: PlanNode | undefined;
  const explain = {
    query: async (text: string, values: unknown[]) => {
      // The page's statement (a cursor's bound may be read before it, as it is).
      if (!text.startsWith('SELECT p.*')) return pool.query(text, values);
      const res = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) ${text}`,
        values,
      );
      plan = res.rows[0]!['QUERY PLAN'][0].Plan;
      return { rows: [] };
    },
  };
  await listPaymentPage(explain as never, f);
  return [...paymentIndexes(plan!)].sort();
}

test('a rarer status with a created range or a cursor reads the status index, whatever the statistics', async () => {
  const cursor = (
    await pool.query<{ id: string }>(
      `SELECT id FROM payments WHERE created_at < now() - interval '182 days'
       ORDER BY created_at DESC, id DESC LIMIT 1`,
    )
  ).rows[0]!.id;
  const cases: [string, PaymentListFilter][] = [
    ['initiated, last week', filter('initiated', { created_from: ago(7) })],
    ['initiated, one month', filter('initiated', { created_from: ago(130), created_to: ago(100) })],
    ['initiated, a cursor', filter('initiated', {}, { before: cursor })],
    [
      'initiated, a cursor in a range',
      filter('initiated', { created_from: ago(300), created_to: ago(100) }, { before: cursor }),
    ],
    [
      'failed, a cursor in a range',
      filter('failed', { created_from: ago(300), created_to: ago(100) }, { before: cursor }),
    ],
    [
      'canceled, a cursor and created_from',
      filter('canceled', { created_from: ago(250) }, { before: cursor }),
    ],
  ];
  const plans: Record<string, string[]> = {};
  const expected: Record<string, string[]> = {};
  for (const [name, f] of cases) {
    plans[name] = await indexesOf(f);
    // The cursor's row is read by its primary key (before the statement, with created_from).
    expected[name] = [
      ...(f.before && !f.search?.createdFrom ? ['payments_pkey'] : []),
      'payments_unsucceeded_created_id_idx',
    ];
  }
  assert.deepEqual(plans, expected);
});

test('the status filter pages through the same rows in the same order', async () => {
  for (const [status, search] of [
    ['initiated', { created_from: ago(40) }],
    ['failed', { created_from: ago(200), created_to: ago(100) }],
    ['canceled', {}],
  ] as const) {
    const from = 'created_from' in search ? search.created_from : null;
    const to = 'created_to' in search ? search.created_to : null;
    const want = (
      await pool.query<{ id: string }>(
        `SELECT id FROM payments WHERE status = $1
           AND ($2::timestamptz IS NULL OR created_at >= $2)
           AND ($3::timestamptz IS NULL OR created_at < $3)
         ORDER BY created_at DESC, id DESC`,
        [status, from, to],
      )
    ).rows.map((r) => r.id);
    assert.ok(want.length > 300, `${status}: ${want.length} payments`);
    const got: string[] = [];
    let before: string | null = null;
    for (;;) {
      const page = await listPaymentPage(pool, filter(status, search, { before, limit: 100 }));
      assert.ok(page.rows.every((r) => r.status === status));
      got.push(...page.rows.map((r) => r.id));
      if (page.nextBefore === null) break;
      before = page.nextBefore;
    }
    assert.deepEqual(got, want, status);
  }
});
