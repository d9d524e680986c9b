/**
 * GET /admin/payments reads a bounded number of rows a page (docs/api.md#bounded-search):
 * filters that together match nothing among many rows answer a short or empty page with
 * `next_before`, the last payment examined; following `next_before` lists every matching
 * payment exactly once, newest first; `next_before` is null only at the end. Payments are
 * written with SQL, several times the bound (SCAN_ROWS), pairs at the very same instant so
 * ties fall to the id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SCAN_ROWS } from '../../../src/db/paymentScan.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus, HEX32, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let app: AppWithSecrets;

/** Initiated payments, small amounts but for the NEEDLES: 3.5 times the bound. */
const INITIATED = Math.round(SCAN_ROWS * 3.5);
/** The initiated payments (by g, 1 the newest) with a large amount. */
const NEEDLES = [5, SCAN_ROWS + 1001, INITIATED - 1];
/** Succeeded payments with large amounts, older than every initiated one: more than the bound. */
const SUCCEEDED = Math.round(SCAN_ROWS * 1.25);

interface Page {
  mode: string;
  payments: { id: string; status: string; amount_minor: number }[];
  next_before: string | null;
}

async function page(query: string): Promise<Page> {
  const res = await gw.admin('GET', `/admin/payments?${query}`);
  assertStatus(res, 200);
  const body = res.json<Page>();
  assert.deepEqual(Object.keys(body), ['mode', 'payments', 'next_before']);
  assert.ok(body.next_before === null || HEX32.test(body.next_before), String(body.next_before));
  return body;
}

/** Every page of a search, following next_before until null. */
async function follow(query: string): Promise<Page[]> {
  const pages = [await page(query)];
  while (pages.at(-1)!.next_before !== null) {
    assert.ok(pages.length < 50, 'the pages end');
    pages.push(await page(`${query}&before=${pages.at(-1)!.next_before}`));
  }
  return pages;
}

async function expected(where: string): Promise<string[]> {
  const rows = await sql<{ id: string }>(
    gw.databaseUrl,
    `SELECT id FROM payments WHERE ${where} ORDER BY created_at DESC, id DESC`,
  );
  return rows.map((r) => r.id);
}

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Bounded search shop' });
  // g decides every row: pairs (2k, 2k + 1) share one created_at; the lower g is newer.
  await sql(
    gw.databaseUrl,
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       external_user_id, email, return_url, created_at, updated_at)
     SELECT md5('bounded-' || g), $1, $2,
       CASE WHEN g <= $3::int THEN 'initiated' ELSE 'succeeded' END,
       CASE WHEN g = ANY($4::int[]) THEN 200000 WHEN g <= $3::int THEN 1000 ELSE 950000 END,
       'IDR', 'qris', 'idr_psp', 'bulk',
       CASE WHEN g <= $3::int THEN 'bulk@example.com' ELSE 'big@example.com' END,
       'https://shop.example/return',
       timestamptz '2026-06-01T00:00:00Z' - (g / 2) * interval '1 second',
       timestamptz '2026-06-01T00:00:00Z' - (g / 2) * interval '1 second'
     FROM generate_series(1, $3::int + $5::int) g`,
    [app.app_id, app.mode, INITIATED, NEEDLES, SUCCEEDED],
  );
  await sql(gw.databaseUrl, 'ANALYZE payments');
});

after(async () => {
  await gw?.stop();
});

describe('GET /admin/payments, bounded', () => {
  test('filters that together match nothing: empty pages, each continuing from the last payment examined', async () => {
    const initiated = await expected(`status = 'initiated'`);
    assert.equal(initiated.length, INITIATED);
    const pages = await follow('status=initiated&amount_min=900000');
    // Each page examines SCAN_ROWS initiated payments; the last reaches the end.
    assert.equal(pages.length, Math.ceil(INITIATED / SCAN_ROWS));
    for (const [i, p] of pages.entries()) {
      assert.deepEqual(p.payments, []);
      const last = (i + 1) * SCAN_ROWS;
      assert.equal(p.next_before, last < INITIATED ? initiated[last - 1] : null, `page ${i}`);
    }
  });

  test('following next_before lists every matching payment once, newest first', async () => {
    const needles = await expected(`status = 'initiated' AND amount_minor >= 100000`);
    assert.equal(needles.length, NEEDLES.length);
    for (const limit of [1, 2, 100, 1000]) {
      const pages = await follow(`status=initiated&amount_min=100000&limit=${limit}`);
      const ids = pages.flatMap((p) => p.payments.map((r) => r.id));
      assert.deepEqual(ids, needles, `limit=${limit}`);
      for (const p of pages) {
        assert.ok(p.payments.length <= limit);
        for (const r of p.payments) {
          assert.equal(r.status, 'initiated');
          assert.ok(r.amount_minor >= 100000);
        }
      }
      // The first page is short (one needle among the first SCAN_ROWS) yet not the end.
      assert.equal(pages[0]!.payments.length, 1, `limit=${limit}`);
      assert.notEqual(pages[0]!.next_before, null);
    }
  });

  test('a text search is bounded the same way, each branch by its own index', async () => {
    const withQ = await follow('q=bulk%40example.com&status=initiated&amount_min=900000');
    const withoutQ = await follow('status=initiated&amount_min=900000');
    assert.deepEqual(
      withQ.map((p) => [p.payments.length, p.next_before]),
      withoutQ.map((p) => [p.payments.length, p.next_before]),
    );
    const needles = await expected(`status = 'initiated' AND amount_minor >= 100000`);
    const pages = await follow('q=bulk&status=initiated&amount_min=100000&limit=2');
    assert.deepEqual(
      pages.flatMap((p) => p.payments.map((r) => r.id)),
      needles,
    );
    assert.ok(pages.length > NEEDLES.length / 2, 'the scan stopped at its bound');
  });

  test('a search that reaches the end without stopping at the bound answers next_before null', async () => {
    assert.deepEqual(await page('q=nobody'), { mode: '', payments: [], next_before: null });
    // An amount range holding few payments in all is read whole: one page, no cursor.
    const few = await page('amount_min=200000&amount_max=300000');
    assert.deepEqual(
      few.payments.map((r) => r.id),
      await expected('amount_minor BETWEEN 200000 AND 300000'),
    );
    assert.equal(few.next_before, null);
    const succeeded = await expected(`status = 'succeeded'`);
    const pages = await follow('status=succeeded&amount_min=900000&limit=1000');
    assert.deepEqual(
      pages.map((p) => p.payments.length),
      [1000, 1000, SUCCEEDED - 2000],
    );
    assert.deepEqual(
      pages.flatMap((p) => p.payments.map((r) => r.id)),
      succeeded,
    );
    // A full page's cursor is its last row, as before.
    assert.equal(pages[0]!.next_before, succeeded[999]);
    const end = await page(
      `status=initiated&before=${(await expected(`status = 'initiated'`)).at(-1)}`,
    );
    assert.deepEqual(end, { mode: '', payments: [], next_before: null });
  });

  test('a page without filters fills, and its cursor is its last row', async () => {
    const all = await expected('true');
    const first = await page('limit=100');
    assert.deepEqual(
      first.payments.map((r) => r.id),
      all.slice(0, 100),
    );
    assert.equal(first.next_before, all[99]);
    const next = await page(`limit=1000&before=${first.next_before}`);
    assert.deepEqual(
      next.payments.map((r) => r.id),
      all.slice(100, 1100),
    );
    assert.equal(next.next_before, all[1099]);
  });

  test('a cursor with created_to: the page starts at the older of the two, ties to the id', async () => {
    const all = await expected('true');
    const rows = await sql<{ id: string; created_at: Date }>(
      gw.databaseUrl,
      `SELECT id, created_at FROM payments ORDER BY created_at DESC, id DESC`,
    );
    // g = 3000 and 3001 share one created_at: created_to at that instant excludes both.
    const at = rows.findIndex((r) => r.id === all[3000]);
    const to = rows[at]!.created_at.toISOString();
    const before = rows.findIndex((r) => r.created_at.getTime() < rows[at]!.created_at.getTime());
    const newerCursor = await page(`before=${all[10]}&created_to=${to}&limit=5`);
    assert.deepEqual(
      newerCursor.payments.map((r) => r.id),
      all.slice(before, before + 5),
    );
    // A cursor older than created_to: the cursor bounds the page.
    const olderCursor = await page(`before=${all[4000]}&created_to=${to}&limit=5`);
    assert.deepEqual(
      olderCursor.payments.map((r) => r.id),
      all.slice(4001, 4006),
    );
    // The cursor at created_to's very instant: the rows before the cursor's id at that instant
    // are at created_to, so excluded too.
    const sameInstant = await page(`before=${all[3000]}&created_to=${to}&limit=5`);
    assert.deepEqual(
      sameInstant.payments.map((r) => r.id),
      all.slice(before, before + 5),
    );
  });
});
