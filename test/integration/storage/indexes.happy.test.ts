/**
 * The payments table's indexes (migrations 0021 and 0039, docs/performance.md#payment-indexes),
 * on a table of 40,000 payments: every admin search filter is served by an index (no plan
 * reads the whole table), the amount filters by payments_amount_idx, and the answers are the
 * right rows newest first. Plans are EXPLAINed as the gateway sends the statement.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { listPaymentRows, type PaymentListFilter } from '../../../src/db/reportLists.js';
import { parsePaymentSearch } from '../../../src/domain/paymentSearch.js';
import { createTestDatabase } from '../../helpers/db.js';
import { type PlanNode } from '../../helpers/plans.js';

const ROWS = 40_000;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;

/** Each read of payments in a plan: "Seq Scan" or the name of the index it reads. */
function reads(node: PlanNode, out: string[] = []): string[] {
  const index = node['Index Name'];
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'payments')
    out.push('Seq Scan');
  else if (index?.startsWith('payments_')) out.push(index);
  for (const child of node.Plans ?? []) reads(child, out);
  return out;
}

/** Pages read by the nodes that read payments (a node's count includes its children's). */
function paymentsPages(node: PlanNode): number {
  if (node['Relation Name'] === 'payments') {
    return (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0);
  }
  return (node.Plans ?? []).reduce((sum, child) => sum + paymentsPages(child), 0);
}

function filter(query: Record<string, string>, extra: Partial<PaymentListFilter> = {}) {
  return {
    mode: null,
    status: null,
    before: null,
    limit: 50,
    search: parsePaymentSearch(query),
    ...extra,
  } satisfies PaymentListFilter;
}

/**
 * The admin list's statement for this filter, run under EXPLAIN: the indexes it read and the
 * pages it touched (a count that does not depend on the machine's speed).
 */
async function planOf(f: PaymentListFilter): Promise<{ used: string[]; pages: number }> {
  let plan: PlanNode | undefined;
  const explain = {
    query: async (text: string, values: unknown[]) => {
      const res = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
      plan = (res.rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
      return { rows: [] };
    },
  };
  await listPaymentRows(explain as never, f);
  return { used: reads(plan!), pages: paymentsPages(plan!) };
}

before(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(
    `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
       allowed_providers, allowed_methods)
     VALUES ('app_idx_live', 'live', 'live', 'key_idx_live', 'x', 'x', '{idr_psp}', '{}'),
            ('app_idx_test', 'test', 'test', 'key_idx_test', 'x', 'x', '{idr_psp}', '{}')`,
  );
  // One payment a minute; amounts spread evenly over 1,000..1,000,999 (g * 7919 is a
  // permutation modulo 1,000,000); 1 in 100 failed, 1 in 200 canceled, 1 in 50 initiated.
  await client.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, email, return_url, metadata, finalized_at, created_at)
     SELECT md5(g::text), CASE WHEN g % 3 = 0 THEN 'app_idx_test' ELSE 'app_idx_live' END,
       CASE WHEN g % 3 = 0 THEN 'test' ELSE 'live' END,
       CASE WHEN g % 100 = 1 THEN 'failed' WHEN g % 200 = 2 THEN 'canceled'
            WHEN g % 50 = 3 THEN 'initiated' ELSE 'succeeded' END,
       1000 + (g * 7919) % 1000000, 'IDR', 'qris', 'idr_psp', 'ref-' || g, 'buyer-' || (g % 5000),
       CASE WHEN g % 4 = 0 THEN NULL ELSE 'b' || (g % 5000) || '@example.com' END,
       'https://shop.example/', '{}',
       CASE WHEN g % 50 = 3 THEN NULL ELSE now() - (g * interval '1 minute') END,
       now() - (g * interval '1 minute')
     FROM generate_series(1, $1) g`,
    [ROWS],
  );
  await client.query('ANALYZE payments');
});

after(async () => {
  await client?.end();
  await db?.drop();
});

test('an amount filter matching few payments reads payments_amount_idx, not the table', async () => {
  const cases = [
    filter({ amount_min: '999000' }),
    filter({ amount_max: '1500' }),
    filter({ amount_min: '2000000', amount_max: '3000000' }),
    filter({ amount_min: '500000', amount_max: '500900' }),
    filter({ amount_min: '999000' }, { status: 'failed' }),
    filter({ amount_min: '999000' }, { mode: 'live' }),
  ];
  for (const f of cases) {
    const { used } = await planOf(f);
    assert.ok(used.includes('payments_amount_idx'), `${JSON.stringify(f)}: ${used.join(', ')}`);
    assert.ok(!used.includes('Seq Scan'), `${JSON.stringify(f)}: ${used.join(', ')}`);
  }
});

test('the amount filters answer the matching payments newest first', async () => {
  const expected = await client.query<{ id: string }>(
    `SELECT id FROM payments WHERE amount_minor BETWEEN 990000 AND 999999
     ORDER BY created_at DESC, id DESC LIMIT 50`,
  );
  assert.ok(expected.rows.length >= 40, 'the range matches more than a handful');
  const rows = await listPaymentRows(
    client,
    filter({ amount_min: '990000', amount_max: '999999' }),
  );
  assert.deepEqual(
    rows.map((r) => r.id),
    expected.rows.map((r) => r.id),
  );
  for (const r of rows)
    assert.ok(Number(r.amount_minor) >= 990000 && Number(r.amount_minor) <= 999999);
  const none = await listPaymentRows(client, filter({ amount_min: '2000000' }));
  assert.deepEqual(none, []);
});

test('every admin search filter reads a few pages, not the whole payments table', async () => {
  const { rows } = await client.query<{ pages: number }>(
    `SELECT relpages AS pages FROM pg_class WHERE relname = 'payments'`,
  );
  const tablePages = rows[0]!.pages;
  assert.ok(tablePages > 500, `the table has ${tablePages} pages`);
  const cases: [string, PaymentListFilter][] = [
    ['no filter', filter({})],
    ['mode', filter({}, { mode: 'test' })],
    ['status=succeeded', filter({}, { status: 'succeeded' })],
    ['status=failed', filter({}, { status: 'failed' })],
    ['status=canceled', filter({}, { status: 'canceled' })],
    ['status=initiated', filter({}, { status: 'initiated' })],
    ['app_id', filter({ app_id: 'app_idx_test' })],
    ['app_id + status=canceled', filter({ app_id: 'app_idx_test' }, { status: 'canceled' })],
    ['created range', filter({ created_from: new Date(Date.now() - 86_400_000).toISOString() })],
    ['q=email', filter({ q: 'b7@example.com' })],
    ['q=external_user_id', filter({ q: 'buyer-7' })],
    ['q=id prefix', filter({ q: 'c4ca4238a0' })],
    ['amount wide', filter({ amount_min: '1000' })],
  ];
  for (const [name, f] of cases) {
    const { used, pages } = await planOf(f);
    assert.ok(!used.includes('Seq Scan'), `${name}: ${used.join(', ')}`);
    // A page of 50 rows (one heap page each at worst) and their index entries: far under a
    // fifth of the table. app + a rare status reads that status's rows (200 here).
    assert.ok(
      pages < tablePages / 5,
      `${name}: ${pages} of ${tablePages} pages (${used.join(', ')})`,
    );
  }
});

test('the status filter: succeeded pages the newest-first index, the rarer statuses their partial index', async () => {
  for (const status of ['succeeded', 'failed', 'canceled', 'initiated']) {
    const f = filter({}, { status });
    const { used } = await planOf(f);
    // initiated has a second partial index of its own (the reports' and the reconciler's).
    const allowed =
      status === 'succeeded'
        ? ['payments_created_idx']
        : status === 'initiated'
          ? ['payments_unsucceeded_created_id_idx', 'payments_initiated_created_idx']
          : ['payments_unsucceeded_created_id_idx'];
    assert.equal(used.length, 1, `${status}: ${used.join(', ')}`);
    assert.ok(allowed.includes(used[0]!), `${status}: ${used.join(', ')}`);
    const expected = await client.query<{ id: string }>(
      `SELECT id FROM payments WHERE status = $1 ORDER BY created_at DESC, id DESC LIMIT 50`,
      [status],
    );
    const rows = await listPaymentRows(client, f);
    assert.equal(rows.length, 50, status);
    assert.deepEqual(
      rows.map((r) => r.id),
      expected.rows.map((r) => r.id),
      status,
    );
  }
  // The next page follows on from the cursor, still in the partial index.
  const first = await listPaymentRows(client, filter({}, { status: 'canceled' }));
  const next = await listPaymentRows(
    client,
    filter({}, { status: 'canceled', before: first.at(-1)!.id }),
  );
  const expected = await client.query<{ id: string }>(
    `SELECT id FROM payments WHERE status = 'canceled' ORDER BY created_at DESC, id DESC OFFSET 50 LIMIT 50`,
  );
  assert.deepEqual(
    next.map((r) => r.id),
    expected.rows.map((r) => r.id),
  );
});

test('an email search finds the payments with that email, from the partial email index', async () => {
  const rows = await listPaymentRows(client, filter({ q: 'b7@example.com' }));
  const expected = await client.query<{ id: string }>(
    `SELECT id FROM payments WHERE email = 'b7@example.com' ORDER BY created_at DESC, id DESC LIMIT 50`,
  );
  assert.ok(expected.rows.length > 0);
  assert.deepEqual(
    rows.map((r) => r.id),
    expected.rows.map((r) => r.id),
  );
  const { used } = await planOf(filter({ q: 'b7@example.com' }));
  assert.ok(used.includes('payments_email_idx'), used.join(', '));
});
