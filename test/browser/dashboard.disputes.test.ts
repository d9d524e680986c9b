/**
 * Disputes in the dashboard (D16), in Chromium against a real gateway whose simulators took
 * money back: the Disputes page (status, amount, evidence deadline, payment link, filters)
 * and the disputes on the payment detail page.
 */
import assert from 'node:assert/strict';
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
import { paidPayment, simAction, type CreatedPayment } from '../helpers/payments.js';

interface Dispute {
  dispute_id: string;
  payment_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  evidence_due_by: string | null;
}

let gw: TestGateway;
let browser: Browser;
let page: Page;
let app: AppWithSecrets;
let open: CreatedPayment;
let lost: CreatedPayment;

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Disputed shop', webhook_url: 'http://127.0.0.1:9/hook' });
  open = await paidPayment(gw, app, 'wallet', 2500);
  await simAction(gw, 'wallet', open.providerRef, 'dispute');
  lost = await paidPayment(gw, app, 'idr', 50000);
  await simAction(gw, 'idr', lost.providerRef, 'chargeback');
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

async function disputesOf(paymentId: string): Promise<Dispute[]> {
  const res = await gw.admin('GET', `/admin/payments/${paymentId}`);
  assert.equal(res.status, 200, res.text);
  return res.json<{ disputes: Dispute[] }>().disputes;
}

async function rowText(d: Dispute, scope = page.locator('body')): Promise<string> {
  const row = scope.locator(`tr[data-id="${d.dispute_id}"]`);
  await row.waitFor();
  return norm(await row.textContent());
}

test('the Disputes page lists each dispute with status, amount, deadline and payment', async () => {
  const [o] = await disputesOf(open.id);
  const [l] = await disputesOf(lost.id);
  assert.ok(o && l);
  await page.goto(`${gw.url}/dashboard/disputes`);
  await page.getByRole('heading', { name: 'Disputes' }).waitFor();
  const openRow = await rowText(o);
  assert.match(openRow, /open/);
  assert.ok(openRow.includes(money(2500, 'EUR')), openRow);
  assert.ok(openRow.includes(open.id.slice(0, 8)), openRow);
  const due = page.locator(`tr[data-id="${o.dispute_id}"] [data-field="evidence_due_by"] time`);
  assert.equal(await due.getAttribute('datetime'), o.evidence_due_by);
  const lostRow = await rowText(l);
  assert.match(lostRow, /lost/);
  assert.ok(lostRow.includes(money(50000, 'IDR')), lostRow);

  // Filter by status: only the lost one stays.
  await page.locator('select[name="status"]').selectOption('lost');
  await page.waitForURL(/status=lost/);
  // The unfiltered table shows both for a moment: wait for the open one to leave it.
  await page.locator(`tr[data-id="${o.dispute_id}"]`).waitFor({ state: 'detached' });
  await page.locator(`tr[data-id="${l.dispute_id}"]`).waitFor();
  assert.equal(await page.locator(`tr[data-id="${o.dispute_id}"]`).count(), 0);
  await screenshot(page, 'dashboard-disputes');

  // The payment link opens its detail page.
  await page.locator(`tr[data-id="${l.dispute_id}"] a`).click();
  await page.waitForURL(new RegExp(`/dashboard/payments/${lost.id}$`));
});

test('the payment detail shows its disputes', async () => {
  const [o] = await disputesOf(open.id);
  assert.ok(o);
  await page.goto(`${gw.url}/dashboard/payments/${open.id}`);
  const section = page.locator('section', { has: page.getByRole('heading', { name: 'Disputes' }) });
  const text = await rowText(o, section);
  assert.match(text, /open/);
  assert.ok(text.includes(money(2500, 'EUR')), text);
  assert.ok(text.includes('MERCHANDISE_OR_SERVICE_NOT_RECEIVED'), text);

  const paid = await paidPayment(gw, app, 'idr', 1000);
  await page.goto(`${gw.url}/dashboard/payments/${paid.id}`);
  const none = page.locator('section', { has: page.getByRole('heading', { name: 'Disputes' }) });
  await none.getByText('No disputes.').waitFor();
});
