/**
 * Following `next_before` while payments are written (docs/api.md#bounded-search): each page
 * is one statement, so one snapshot, and its cursor a payment examined in it. Payments
 * inserted during the paging, newer than the first page or backdated among the pages
 * already read, never make a payment appear twice or one that matched all along go missing,
 * and the order stays newest first.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCAN_ROWS } from '../../../src/db/paymentScan.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let app: AppWithSecrets;
const ROWS = SCAN_ROWS * 3;
/** One initiated payment in 500 has a large amount: the search matches a handful a page. */
const EVERY = 500;
const QUERY = 'status=initiated&amount_min=100000&limit=2';

const insert = (from: number, to: number, base: string) =>
  sql(
    gw.databaseUrl,
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       external_user_id, return_url, created_at, updated_at)
     SELECT md5('bounded-race-' || $4::text || g), $1, $2, 'initiated',
       CASE WHEN g % ${EVERY} = 0 THEN 200000 ELSE 1000 END, 'IDR', 'qris', 'idr_psp', 'bulk',
       'https://shop.example/return', $3::timestamptz - g * interval '1 second',
       $3::timestamptz - g * interval '1 second'
     FROM generate_series($5::int, $6::int) g`,
    [app.app_id, app.mode, base, base, from, to],
  );

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Bounded race shop' });
  await insert(1, ROWS, '2026-06-01T00:00:00Z');
});

after(async () => {
  await gw?.stop();
});

test('paging by next_before while payments are inserted lists each once, newest first', async () => {
  const initial = (
    await sql<{ id: string }>(
      gw.databaseUrl,
      `SELECT id FROM payments WHERE status = 'initiated' AND amount_minor >= 100000
       ORDER BY created_at DESC, id DESC`,
    )
  ).map((r) => r.id);
  assert.equal(initial.length, ROWS / EVERY);
  const seen: { id: string; created_at: string }[] = [];
  let writes = 0;
  const writer = (async () => {
    // Newer than everything, and backdated into the middle of the list, while pages are read.
    for (let i = 0; i < 20; i++) {
      await insert(i * 1000 + 1, i * 1000 + 1000, `2026-07-0${1 + (i % 9)}T00:00:00Z`);
      await insert(1, 600, `2026-05-31T${String(10 + (i % 10)).padStart(2, '0')}:00:00.${i}Z`);
      writes++;
    }
  })();
  let next: string | null = null;
  let pages = 0;
  do {
    const res = await gw.admin(
      'GET',
      `/admin/payments?${QUERY}${next === null ? '' : `&before=${next}`}`,
    );
    assertStatus(res, 200);
    const body = res.json<{
      payments: { id: string; created_at: string }[];
      next_before: string | null;
    }>();
    seen.push(...body.payments);
    next = body.next_before;
    pages++;
  } while (next !== null && pages < 1000);
  await writer;
  assert.equal(writes, 20);
  assert.equal(next, null, 'the paging ends');
  const ids = seen.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, 'no payment twice');
  for (const id of initial) assert.ok(ids.includes(id), `${id} listed`);
  // Newest first throughout (created_at to the millisecond here; ties are not made).
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i - 1]!.created_at >= seen[i]!.created_at, `order at ${i}`);
  }
  // The ones listed are in the order the table has them.
  const order = (
    await sql<{ id: string }>(
      gw.databaseUrl,
      `SELECT id FROM payments WHERE id = ANY($1::text[]) ORDER BY created_at DESC, id DESC`,
      [ids],
    )
  ).map((r) => r.id);
  assert.deepEqual(ids, order);
});
