/**
 * The dashboard's Reconciliation page in a real browser over a real gateway: an operator
 * uploads the day's idr_psp settlement file (the simulator's, with a reconciliation_drift
 * payment in it), runs the day, sees its status, sums, fees and differences with links to
 * the payment, the upload listed with who made it, and exports the differences as CSV.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AppWithSecrets } from '../helpers/contract.js';
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
import { createPayment, paidPayment, simAction } from '../helpers/payments.js';

let gw: TestGateway;
let shop: AppWithSecrets;
let browser: Browser;
let page: Page;
let driftId = '';
const today = new Date().toISOString().slice(0, 10);

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Rupiah shop' });
  await paidPayment(gw, shop, 'idr', 40_000);
  const drift = await createPayment(gw, shop, 'idr', 20_000, {
    test_scenario: 'reconciliation_drift',
  });
  driftId = drift.id;
  assert.equal((await simAction(gw, 'idr', drift.providerRef, 'pay')).gateway_status, 200);
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

test('upload the day’s file, run it, see the differences and export them', async () => {
  const file = path.join(tmpdir(), `settlement-${process.pid}-${today}.csv`);
  const res = await fetch(`${gw.url}/sim/idr_psp/reports/settlement?date=${today}`);
  await writeFile(file, await res.text());

  await page.goto(`${gw.url}/dashboard/reconciliation?provider=idr_psp&mode=test&date=${today}`);
  await page.getByRole('heading', { name: 'Reconciliation' }).waitFor();
  await page.locator('#reconciliation-summary [data-field="status"]').waitFor();
  assert.equal(norm(await page.locator('[data-field="status"]').textContent()), 'pending');

  await page.locator('#upload-form input[type="file"]').setInputFiles(file);
  await page.locator('#upload-form button[type="submit"]').click();
  await page.locator('#action-result').waitFor();
  assert.match(norm(await page.locator('#action-result').textContent()), /^Imported settlement-/);
  const upload = page.locator('#imports-table tbody tr').first();
  await upload.waitFor();
  assert.match(norm(await upload.textContent()), /127\.0\.0\.1/);

  await page.locator('#run-now').click();
  await page.waitForFunction(
    () => document.querySelector('[data-field="status"]')?.textContent?.trim() === 'mismatched',
  );
  assert.equal(norm(await page.locator('[data-field="matched_count"]').textContent()), '1');
  // The sums are per currency: idr_psp's day has one row, IDR.
  const IDR_ROW = '#reconciliation-totals tbody tr[data-currency="IDR"]';
  assert.equal(await page.locator('#reconciliation-totals tbody tr').count(), 1);
  assert.equal(
    norm(await page.locator(`${IDR_ROW} [data-field="gateway_net_minor"]`).textContent()),
    money(60_000, 'IDR'),
  );
  // The drifted charge (20,100) and an unknown one (20,000) beside the clean 40,000.
  assert.equal(
    norm(await page.locator(`${IDR_ROW} [data-field="provider_net_minor"]`).textContent()),
    money(80_100, 'IDR'),
  );
  // QRIS 0.7% of each provider charge: 280 + 141 + 140.
  assert.equal(
    norm(await page.locator(`${IDR_ROW} [data-field="fees_minor"]`).textContent()),
    money(561, 'IDR'),
  );
  const kinds = await page
    .locator('#reconciliation-items tbody tr')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')).sort());
  assert.deepEqual(kinds, ['amount_mismatch', 'missing_in_gateway']);
  await screenshot(page, 'reconciliation-idr');

  // The difference links to its payment.
  const link = page.locator('#reconciliation-items tr[data-kind="amount_mismatch"] a');
  assert.equal(await link.getAttribute('href'), `/dashboard/payments/${driftId}`);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('#export-items').click(),
  ]);
  assert.equal(download.suggestedFilename(), `reconciliation-idr_psp-test-${today}.csv`);
  const csv = await readFile(await download.path(), 'utf8');
  const lines = csv.split('\r\n');
  assert.match(lines[0] ?? '', /^provider,mode,date,kind,movement,provider_ref,payment_id/);
  assert.equal(lines.length, 4);
  await link.click();
  await page.waitForURL(new RegExp(`/dashboard/payments/${driftId}$`));
});
