/**
 * The dashboard's Ledger page and the overview's net from the ledger (docs/api.md#ledger),
 * in Chromium against a real gateway: a paid and partly refunded payment, and a late charge
 * the gateway refunded at once, which nets to zero on the overview.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AppWithSecrets } from '../helpers/contract.js';
import { paymentBody, sql } from '../helpers/core.js';
import {
  ensureDashboardBuilt,
  launchBrowser,
  money,
  norm,
  screenshot,
  signedInPage,
  type Browser,
} from '../helpers/browser.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../helpers/idrNotify.js';
import { paidPayment } from '../helpers/payments.js';

let gw: TestGateway;
let browser: Browser;
let page: Page;
let shop: AppWithSecrets;

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Ledger shop' });
  const p = await paidPayment(gw, shop, 'idr', 150_000);
  const refund = await gw.v1(shop, 'POST', '/v1/refunds', {
    payment_id: p.id,
    amount_minor: 50_000,
  });
  assert.equal(refund.status, 201, refund.text);
  // A late charge on a canceled payment, refunded by the gateway at once.
  const created = await gw.v1(
    shop,
    'POST',
    '/v1/payments',
    paymentBody({ currency: 'IDR', method: 'qris', amount_minor: 25_000 }),
  );
  const id = created.json<{ payment_id: string }>().payment_id;
  assert.equal((await gw.admin('POST', `/admin/payments/${id}/cancel`)).status, 200);
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"settlement"}'::jsonb
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [id],
  );
  const res = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(idrTestServerKey(gw.running.gw.config.masterKey), {
      orderId: id,
      status: 'settlement',
      grossAmount: 25_000,
    }),
  );
  assert.equal(res.status, 200, res.text);
  await paidPayment(gw, shop, 'wallet', 2599);
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

test('overview: the net is the ledger sum (a refunded late charge nets to zero)', async () => {
  const net = page.locator('article[data-currency="IDR"] [data-field="net_minor"]').first();
  await net.waitFor();
  // 150,000 charged, 50,000 refunded; the late charge of 25,000 and its refund cancel out.
  assert.equal(norm(await net.textContent()), money(100_000, 'IDR'));
  const refunded = page.locator('article[data-currency="IDR"] [data-field="refunded_minor"]');
  assert.equal(norm(await refunded.first().textContent()), money(75_000, 'IDR'));
  // The net leads to the ledger of that currency.
  await net.locator('a').click();
  await page.getByRole('heading', { name: 'Ledger' }).waitFor();
  assert.match(page.url(), /\/dashboard\/ledger\?currency=IDR$/);
  await page.locator('#ledger-table tbody tr').first().waitFor();
  const types = await page
    .locator('#ledger-table tbody tr')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')));
  assert.deepEqual(types, ['late_charge_refund', 'late_charge', 'refund', 'charge']);
  assert.equal(norm(await page.locator('#ledger-page-sum').textContent()), money(100_000, 'IDR'));
  await screenshot(page, 'ledger-idr');
});

test('ledger: the provider and type filters ask the API and show its entries', async () => {
  await page.goto(`${gw.url}/dashboard/ledger`);
  await page.locator('#ledger-table tbody tr').first().waitFor();
  assert.equal(await page.locator('#ledger-table tbody tr').count(), 5);
  await page.locator('select[name="provider"]').selectOption('wallet_psp');
  await page.waitForURL(/provider=wallet_psp/);
  // The old table (five rows, charges among them) may still be on screen for a moment:
  // wait until the table shows what the filtered request answered, one row.
  await page.waitForFunction(
    () => document.querySelectorAll('#ledger-table tbody tr').length === 1,
  );
  assert.equal(await page.locator('#ledger-table tbody tr[data-type="charge"]').count(), 1);
  const row = page.locator('#ledger-table tbody tr').first();
  assert.equal(
    norm(await row.locator('[data-field="amount_minor"]').textContent()),
    money(2599, 'EUR'),
  );
  await page.locator('select[name="type"]').selectOption('refund');
  await page.waitForURL(/type=refund/);
  await page.getByText('No entries.').waitFor();
});
