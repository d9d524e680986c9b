/**
 * Operator screens in Chromium against a real gateway: the search box on every page, the
 * stuck page with Sync, the audit log page, and bulk redelivery from the Apps page.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AppWithSecrets } from '../helpers/contract.js';
import { eventually } from '../helpers/eventually.js';
import { sql } from '../helpers/core.js';
import {
  ensureDashboardBuilt,
  launchBrowser,
  norm,
  screenshot,
  signedInPage,
  type Browser,
} from '../helpers/browser.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createPayment, paidPayment } from '../helpers/payments.js';

let gw: TestGateway;
let browser: Browser;
let page: Page;
let app: AppWithSecrets;

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway({}, { workers: false });
  app = await gw.createApp({ name: 'Operator shop' });
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

async function rowIds(table: string): Promise<string[]> {
  await page.locator(`${table} tbody tr`).first().waitFor();
  return page
    .locator(`${table} tbody tr`)
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id') ?? ''));
}

test('search: the header box on any page finds a payment by id prefix and by buyer', async () => {
  const target = await createPayment(gw, app, 'idr', 31_000);
  await createPayment(gw, app, 'card', 4_200);
  await page.goto(`${gw.url}/dashboard/apps`);
  const box = page.getByRole('searchbox', { name: 'Search payments' });
  await box.fill(target.id.slice(0, 10));
  await box.press('Enter');
  await page.getByRole('heading', { name: 'Payments' }).waitFor();
  await eventually(
    async () => ((await rowIds('#payments-table')).join() === target.id ? true : undefined),
    'one search result',
  );
  assert.match(page.url(), new RegExp(`/dashboard/payments\\?q=${target.id.slice(0, 10)}`));
  // The filters narrow it further: card payments of buyer-2 below 5,000 minor units.
  await page.goto(`${gw.url}/dashboard/stuck`);
  await box.fill('buyer-2');
  await box.press('Enter');
  await page
    .getByRole('form', { name: 'Search payments' })
    .getByLabel('Amount max (minor)')
    .fill('5000');
  await page.getByRole('button', { name: 'Apply' }).click();
  await eventually(async () => {
    const ids = await rowIds('#payments-table');
    return ids.length === 1 && ids[0] !== target.id ? true : undefined;
  }, 'the filtered result');
  await screenshot(page, 'payments-search');
});

test('stuck page: a payment past its deadline, Sync settles it as the provider says', async () => {
  const p = await createPayment(gw, app, 'idr', 32_000);
  await sql(
    gw.databaseUrl,
    `UPDATE payments SET provider_deadline = now() - interval '1 minute' WHERE id = $1`,
    [p.id],
  );
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"settlement"}'
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND data->>'order_id' = $1`,
    [p.id],
  );
  await page.getByRole('link', { name: 'Stuck' }).click();
  await page.getByRole('heading', { name: 'Stuck work' }).waitFor();
  const row = page.locator(`#stuck-payments tr[data-id="${p.id}"]`);
  await row.waitFor();
  assert.match(norm(await row.textContent()), /not asked yet/);
  await screenshot(page, 'stuck');
  await row.getByRole('button', { name: 'Sync' }).click();
  await page.locator('#action-result').waitFor();
  assert.equal(
    norm(await page.locator('#action-result').textContent()),
    `Payment ${p.id}: succeeded after sync.`,
  );
  await row.waitFor({ state: 'detached' });
  const res = await gw.admin('GET', `/admin/payments/${p.id}`);
  assert.equal(res.json<{ status: string }>().status, 'succeeded');
});

test('audit page: the changes just made, newest first, filtered by action', async () => {
  const paid = await paidPayment(gw, app, 'idr', 33_000);
  const retried = await gw.admin('POST', `/admin/payments/${paid.id}/retry-webhook`);
  assert.equal(retried.status, 202);
  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('heading', { name: 'Audit log' }).waitFor();
  await page.locator('#audit-table tbody tr').first().waitFor();
  const first = page.locator('#audit-table tbody tr').first();
  assert.equal(
    norm(await first.locator('[data-field="action"]').textContent()),
    'payment.retry_webhook',
  );
  assert.equal(
    norm(await first.locator('[data-field="target"]').textContent()),
    `payment ${paid.id}`,
  );
  await page.getByLabel('Action').selectOption('payment.sync');
  await eventually(async () => {
    const actions = (
      await page.locator('#audit-table [data-field="action"]').allTextContents()
    ).map(norm);
    return actions.length > 0 && actions.every((a) => a === 'payment.sync') ? true : undefined;
  }, 'only sync entries');
  assert.equal(
    norm(await page.locator('#audit-table [data-field="outcome"]').first().textContent()),
    'succeeded',
  );
  await screenshot(page, 'audit');
});

test('apps page: redeliver an app events since a time', async () => {
  await page.getByRole('link', { name: 'Apps' }).click();
  await page.getByRole('heading', { name: 'Apps' }).waitFor();
  await page.getByRole('button', { name: 'Redeliver events…' }).first().click();
  const dialog = page.getByRole('dialog', { name: "Redeliver this app's events?" });
  await dialog.waitFor();
  await dialog.getByLabel('Only events never delivered').uncheck();
  await dialog.getByRole('button', { name: 'Redeliver', exact: true }).click();
  await page.locator('#action-result').waitFor();
  const events = await sql<{ n: number }>(
    gw.databaseUrl,
    `SELECT count(*)::int AS n FROM outbound_events WHERE app_id = $1`,
    [app.app_id],
  );
  assert.equal(
    norm(await page.locator('#action-result').textContent()),
    `Operator shop: ${events[0]?.n} deliveries enqueued.`,
  );
});
