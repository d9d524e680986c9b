/**
 * GET /admin/ledger reads a bounded number of entries a page (docs/api.md#ledger), as the
 * payment search does: filters that together match nothing among many entries answer a
 * short or empty page with `next_before`, the last entry examined; following `next_before`
 * lists every matching entry exactly once, newest first; `next_before` is null only at the
 * end. Entries are written with SQL, several times the bound (SCAN_ROWS), pairs at the very
 * same instant so ties fall to the id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SCAN_ROWS } from '../../../src/db/paymentScan.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus, HEX32, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

let gw: TestGateway;
let app: AppWithSecrets;

/** Dispute entries in IDR: 3.5 times the bound. */
const ENTRIES = Math.round(SCAN_ROWS * 3.5);
/** The entries (by g, 1 the newest) in GBP instead. */
const NEEDLES = [5, SCAN_ROWS + 1001, ENTRIES - 1];

interface Page {
  entries: { id: string; type: string; currency: string }[];
  next_before: string | null;
}

async function page(query: string): Promise<Page> {
  const res = await gw.admin('GET', `/admin/ledger?${query}`);
  assertStatus(res, 200);
  const body = res.json<Page>();
  assert.deepEqual(Object.keys(body), ['entries', 'next_before']);
  assert.ok(body.next_before === null || HEX32.test(body.next_before), String(body.next_before));
  return body;
}

/** Every page of a list, following next_before until null. */
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
    `SELECT id FROM ledger_entries WHERE app_id = $1 AND ${where} ORDER BY occurred_at DESC, id DESC`,
    [app.app_id],
  );
  return rows.map((r) => r.id);
}

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Bounded ledger shop' });
  // One real payment (its charge is booked by the gateway) the disputes below refer to.
  const p = await paidPayment(gw, app, 'idr', 10_000);
  // g decides every row: pairs (2k, 2k + 1) share one occurred_at; the lower g is newer, and
  // every one is older than the charge.
  await sql(
    gw.databaseUrl,
    `INSERT INTO ledger_entries (id, type, payment_id, app_id, provider, mode, currency,
       amount_minor, occurred_at)
     SELECT md5('bounded-ledger-' || g), 'dispute', $1, $2, 'idr_psp', $3,
       CASE WHEN g = ANY($4::int[]) THEN 'GBP' ELSE 'IDR' END, -100,
       now() - interval '1 hour' - (g / 2) * interval '1 second'
     FROM generate_series(1, $5::int) g`,
    [p.id, app.app_id, app.mode, NEEDLES, ENTRIES],
  );
  await sql(gw.databaseUrl, 'ANALYZE ledger_entries');
});

after(async () => {
  await gw?.stop();
});

describe('GET /admin/ledger, bounded', () => {
  test('filters that together match nothing: empty pages, each continuing from the last entry examined', async () => {
    const disputes = await expected(`type = 'dispute'`);
    assert.equal(disputes.length, ENTRIES);
    const pages = await follow(`type=dispute&currency=USD&app_id=${app.app_id}`);
    // Each page examines SCAN_ROWS dispute entries; the last reaches the end.
    assert.equal(pages.length, Math.ceil(ENTRIES / SCAN_ROWS));
    for (const [i, p] of pages.entries()) {
      assert.deepEqual(p.entries, []);
      const last = (i + 1) * SCAN_ROWS;
      assert.equal(p.next_before, last < ENTRIES ? disputes[last - 1] : null, `page ${i}`);
    }
  });

  test('following next_before lists every matching entry once, newest first', async () => {
    const needles = await expected(`currency = 'GBP'`);
    assert.equal(needles.length, NEEDLES.length);
    for (const limit of [1, 2, 100, 1000]) {
      for (const filter of [`app_id=${app.app_id}`, 'type=dispute']) {
        const pages = await follow(`${filter}&currency=GBP&limit=${limit}`);
        const ids = pages.flatMap((p) => p.entries.map((e) => e.id));
        assert.deepEqual(ids, needles, `${filter} limit=${limit}`);
        for (const p of pages) {
          assert.ok(p.entries.length <= limit);
          for (const e of p.entries) assert.equal(e.currency, 'GBP');
        }
        // The first page is short (one needle among the first SCAN_ROWS) yet not the end.
        assert.equal(pages[0]!.entries.length, 1, `${filter} limit=${limit}`);
        assert.notEqual(pages[0]!.next_before, null);
      }
    }
  });

  test('filters matching most entries fill their pages; next_before is the last of a full page', async () => {
    const all = await expected('true');
    const first = await page(`app_id=${app.app_id}&limit=100`);
    assert.deepEqual(
      first.entries.map((e) => e.id),
      all.slice(0, 100),
    );
    assert.equal(first.next_before, all[99]);
    const pages = await follow(`app_id=${app.app_id}&limit=1000`);
    assert.deepEqual(
      pages.flatMap((p) => p.entries.map((e) => e.id)),
      all,
    );
    assert.equal(pages.length, Math.ceil(all.length / 1000));
  });

  test('a list that reaches the end without stopping at the bound answers next_before null', async () => {
    const charges = await expected(`type = 'charge'`);
    assert.equal(charges.length, 1);
    // The type index drives: one charge in all, the end. (With app_id, the app's index would
    // drive and stop at the bound among its dispute entries, with a next_before.)
    const charge = await page('type=charge&currency=IDR');
    assert.deepEqual(
      charge.entries.map((e) => e.id),
      charges,
    );
    assert.equal(charge.next_before, null);
    // The app is a test one: another mode, or an unknown app, is the end at once.
    for (const q of [`app_id=${app.app_id}&mode=live`, 'app_id=app_unknown&currency=GBP']) {
      assert.deepEqual(await page(q), { entries: [], next_before: null }, q);
    }
    assert.deepEqual(await page('since=2020-01-01&until=2020-02-01'), {
      entries: [],
      next_before: null,
    });
  });
});
