/**
 * The dashboard's payment search when filters together match almost nothing among many
 * payments (docs/api.md#bounded-search): a page of the API reads a bounded number of
 * payments, so a short or empty page may have more after it. "Older →" follows the API's
 * next_before, enabled on such a page, and ends when next_before is null. Payments are
 * written with SQL, several times the bound.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { SCAN_ROWS } from '../../src/db/paymentScan.js';
import { sql } from '../helpers/core.js';
import {
  ensureDashboardBuilt,
  launchBrowser,
  screenshot,
  signedInPage,
  type Browser,
} from '../helpers/browser.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let browser: Browser;
let page: Page;
/** Initiated payments with small amounts, and one (NEEDLE, by g; 1 the newest) with a large one. */
const INITIATED = Math.round(SCAN_ROWS * 2.5);
const NEEDLE = Math.round(SCAN_ROWS * 1.5);
let needle = '';

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway();
  const app = await gw.createApp({ name: 'Bounded shop' });
  // Succeeded payments with large amounts, older, more than the bound: the amount range alone
  // matches many payments, the status alone many, the two together one.
  await sql(
    gw.databaseUrl,
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       external_user_id, return_url, created_at, updated_at)
     SELECT md5('dash-bounded-' || g), $1, $2, CASE WHEN g <= $3::int THEN 'initiated' ELSE 'succeeded' END,
       CASE WHEN g = $4::int THEN 200000 WHEN g <= $3::int THEN 1000 ELSE 950000 END,
       'IDR', 'qris', 'idr_psp', 'bulk', 'https://shop.example/return',
       now() - g * interval '1 second', now() - g * interval '1 second'
     FROM generate_series(1, $3::int * 2) g`,
    [app.app_id, app.mode, INITIATED, NEEDLE],
  );
  await sql(gw.databaseUrl, 'ANALYZE payments');
  needle = (
    await sql<{ id: string }>(gw.databaseUrl, `SELECT md5('dash-bounded-' || $1) AS id`, [
      String(NEEDLE),
    ])
  )[0]!.id;
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

const older = () => page.getByRole('button', { name: 'Older →' });

test('payments: a search that stops at its bound pages on by next_before, even from an empty page', async () => {
  await page.goto(`${gw.url}/dashboard/payments?status=initiated&amount_min=100000&limit=25`);
  // The first SCAN_ROWS initiated payments hold no match: an empty page that is not the end.
  await page.getByText('No match among the payments searched so far').waitFor();
  assert.equal(await older().isDisabled(), false);
  await screenshot(page, 'payments-bounded-empty');

  await older().click();
  // The next SCAN_ROWS hold the one match: a short page, and still not the end.
  await page.locator(`#payments-table tbody tr[data-id="${needle}"]`).waitFor();
  assert.equal(await page.locator('#payments-table tbody tr').count(), 1);
  await page.locator('#payments-partial').waitFor();
  assert.equal(await older().isDisabled(), false);

  await older().click();
  // The rest of the initiated payments: no match, and the end.
  await page.getByText('No older payments.').waitFor();
  assert.equal(await older().isDisabled(), true);

  // Back the way it came.
  await page.getByRole('button', { name: '← Newer' }).click();
  await page.locator(`#payments-table tbody tr[data-id="${needle}"]`).waitFor();
});

test('payments: a full page still pages by its last row, and the last page ends the pager', async () => {
  await page.goto(`${gw.url}/dashboard/payments?status=succeeded&limit=100`);
  await page.locator('#payments-table tbody tr').first().waitFor();
  assert.equal(await page.locator('#payments-table tbody tr').count(), 100);
  assert.equal(await page.locator('#payments-partial').count(), 0);
  assert.equal(await older().isDisabled(), false);
  const res = await gw.admin('GET', '/admin/payments?status=succeeded&limit=100');
  const body = res.json<{ payments: { id: string }[]; next_before: string | null }>();
  assert.equal(body.next_before, body.payments[99]!.id);
});
