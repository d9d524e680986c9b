/**
 * Issue 22's interface findings in Chromium against a real gateway: Sync on the payment
 * detail page (a lost webhook of a VA payment, long before the Stuck page would list it),
 * human field labels, the app and a partial refund's amount in the payment list, the phone
 * navigation with every screen in sight, and the simulators' checkout pages (the QR string
 * wraps; amounts in the currency's own format; the wallet's status in words). Layout is
 * checked by measuring elements at given viewport sizes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AppWithSecrets } from '../helpers/contract.js';
import { eventually } from '../helpers/eventually.js';
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
let browser: Browser;
let page: Page;
let app: AppWithSecrets;

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Corner bakery' });
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

async function text(selector: string, on: Page = page): Promise<string> {
  const loc = on.locator(selector).first();
  await loc.waitFor();
  return norm(await loc.textContent());
}

async function apiStatus(id: string): Promise<string> {
  const res = await gw.admin('GET', `/admin/payments/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.json<{ status: string }>().status;
}

/** The horizontal extent of the page's content against the viewport's width. */
async function overflow(on: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return on.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
}

test('payment detail: Sync settles a VA payment whose webhook was lost, as the provider says', async () => {
  const res = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'buyer-sync',
    email: 'sync@example.com',
    amount_minor: 64_000,
    currency: 'IDR',
    method: 'va_bca',
    return_url: 'https://shop.example/back',
    metadata: { test_scenario: 'lost_webhook' },
  });
  assert.equal(res.status, 201, res.text);
  const id = res.json<{ payment_id: string }>().payment_id;
  const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  const ref = read.json<{ provider_ref: string }>().provider_ref;
  const paid = await simAction(gw, 'va', ref, 'pay');
  assert.equal(paid.gateway_status, 0, 'the scenario sent no webhook');
  assert.equal(await apiStatus(id), 'initiated');
  // Not on the Stuck page: its provider deadline is a day away.
  const stuck = await gw.admin('GET', '/admin/stuck');
  assert.ok(!stuck.text.includes(id));

  await page.goto(`${gw.url}/dashboard/payments/${id}`);
  await page.locator('[data-field="status"] dd').first().waitFor();
  assert.equal(await text('[data-field="status"] dd'), 'initiated');
  assert.equal(
    await text('section[aria-labelledby="actions-title"] p.muted'),
    "Sync asks the provider for this payment's status now, as the gateway does by itself once the provider deadline passes; use it when a webhook was lost.",
  );
  await page.getByRole('button', { name: 'Sync with provider' }).click();
  assert.equal(await text('#action-result'), `Payment ${id}: succeeded after sync.`);
  await eventually(
    async () => ((await text('[data-field="status"] dd')) === 'succeeded' ? true : undefined),
    'the succeeded status on screen',
  );
  assert.equal(await apiStatus(id), 'succeeded');
  // Only an initiated payment is synced.
  assert.equal(await page.getByRole('button', { name: 'Sync with provider' }).isDisabled(), true);
  await screenshot(page, 'payment-synced');
});

test('payment detail: fields carry human labels, the API name on hover', async () => {
  const p = await paidPayment(gw, app, 'idr', 150_000);
  await page.goto(`${gw.url}/dashboard/payments/${p.id}`);
  await page.locator('[data-field="status"] dd').first().waitFor();
  const details = page.locator('section[aria-labelledby="fields-title"] dl.fields > div');
  const labels = await details.evaluateAll((rows) =>
    rows.map((r) => [r.getAttribute('data-field'), r.querySelector('dt')?.textContent ?? '']),
  );
  assert.deepEqual(Object.fromEntries(labels), {
    id: 'ID',
    status: 'Status',
    amount_minor: 'Amount',
    currency: 'Currency',
    method: 'Method',
    provider: 'Provider',
    app_id: 'App',
    mode: 'Mode',
    provider_ref: 'Provider reference',
    external_user_id: 'Buyer ID',
    email: 'Buyer email',
    return_url: 'Return URL',
    invoice_number: 'Invoice number',
    checkout_url: 'Checkout URL',
    qr_string: 'QR string',
    qr_image_url: 'QR image URL',
    provider_deadline: 'Provider deadline',
    finalized_at: 'Finalized',
    subscription_id: 'Subscription',
    parent_payment_id: 'Renewal of payment',
    created_at: 'Created',
    updated_at: 'Updated',
    inbound_events_count: 'Provider events received',
  });
  assert.equal(
    await page.locator('[data-field="amount_minor"] dt').getAttribute('title'),
    'amount_minor',
  );
  assert.equal(await text('[data-field="amount_minor"] dd'), money(150_000, 'IDR'));
  assert.equal(await text('.last-error'), 'Last error: none');
  assert.equal(await text('section[aria-labelledby="fields-title"] h3'), 'Metadata');
});

test('payment list: the app by name and a partial refund with its amount', async () => {
  const other = await gw.createApp({ name: 'Night market' });
  const partial = await paidPayment(gw, app, 'idr', 150_000);
  const full = await paidPayment(gw, other, 'idr', 20_000);
  const plain = await createPayment(gw, app, 'idr', 9_000);
  for (const [id, amount] of [
    [partial.id, 40_000],
    [full.id, 20_000],
  ] as const) {
    const res = await gw.admin('POST', `/admin/payments/${id}/refund`, { amount_minor: amount });
    assert.equal(res.status < 300, true, res.text);
  }
  await page.goto(`${gw.url}/dashboard/payments`);
  const row = (id: string) => page.locator(`#payments-table tbody tr[data-id="${id}"]`);
  await row(partial.id).waitFor();
  await eventually(
    async () =>
      (await text(`tr[data-id="${partial.id}"] [data-field="app"]`)) === 'Corner bakery'
        ? true
        : undefined,
    'the app name',
  );
  assert.equal(await text(`tr[data-id="${full.id}"] [data-field="app"]`), 'Night market');
  assert.equal(
    await row(partial.id).locator('[data-field="app"]').getAttribute('title'),
    app.app_id,
  );
  assert.equal(
    await text(`tr[data-id="${partial.id}"] .refund-amount`),
    `${money(40_000, 'IDR')} (partial)`,
  );
  assert.equal(await text(`tr[data-id="${full.id}"] .refund-amount`), money(20_000, 'IDR'));
  assert.equal(await row(plain.id).locator('.refund-amount').count(), 0);
  const head = await page.locator('#payments-table thead th').allTextContents();
  assert.deepEqual(head.map(norm), [
    'Payment',
    'App',
    'Created',
    'Status',
    'Amount',
    'Method',
    'Provider',
    'Mode',
    'Refund',
  ]);
  await screenshot(page, 'payments-app-refund');
});

test('phone: every navigation link is inside the 390 px viewport, nothing scrolls sideways', async () => {
  // A new tab has its own sessionStorage, so it signs in first.
  const phone = await signedInPage(browser, gw.url, ADMIN_TOKEN);
  await phone.setViewportSize({ width: 390, height: 844 });
  await phone.reload();
  await phone.getByRole('heading', { name: 'Overview' }).waitFor();
  const links = phone.getByRole('navigation', { name: 'Screens' }).getByRole('link');
  assert.deepEqual((await links.allTextContents()).map(norm), [
    'Overview',
    'Payments',
    'Refunds',
    'Disputes',
    'Ledger',
    'Reconciliation',
    'Balances',
    'Apps',
    'Dead deliveries',
    'Stuck',
    'Audit log',
    'Operators',
  ]);
  const boxes = await links.evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent ?? '', left: r.left, right: r.right, width: r.width };
    }),
  );
  for (const b of boxes) {
    assert.ok(b.width > 0 && b.left >= 0 && b.right <= 390, `${b.text}: ${b.left}..${b.right}`);
  }
  const nav = await phone
    .locator('header.top nav ul')
    .evaluate((ul) => ({ scroll: ul.scrollWidth, client: ul.clientWidth }));
  assert.ok(nav.scroll <= nav.client, `navigation ${nav.scroll} px in ${nav.client} px`);
  const o = await overflow(phone);
  assert.ok(o.scrollWidth <= o.innerWidth, `page ${o.scrollWidth} px at ${o.innerWidth} px`);
  await screenshot(phone, 'nav-phone');
  await phone.close();
});

/** The hosted page the gateway sends the buyer to (the create answer's checkout_url). */
async function checkoutUrl(id: string): Promise<string> {
  const res = await gw.admin('GET', `/admin/payments/${id}`);
  const url = res.json<{ checkout_url: string | null }>().checkout_url;
  assert.ok(url, 'the payment has a checkout page');
  return url;
}

/** The checkout page's table as label → value. */
async function rows(on: Page): Promise<Record<string, string>> {
  const pairs = await on
    .locator('table tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [
        tr.querySelector('th')?.textContent ?? '',
        tr.querySelector('td')?.textContent ?? '',
      ]),
    );
  return Object.fromEntries(pairs);
}

test('QRIS checkout page: the QR string wraps inside the viewport at 1280 and 390 px', async () => {
  const p = await createPayment(gw, app, 'idr', 45_000);
  const buyer = await browser.context.newPage();
  for (const width of [1280, 390]) {
    await buyer.setViewportSize({ width, height: 860 });
    await buyer.goto(await checkoutUrl(p.id));
    const cell = buyer
      .locator('tr', { has: buyer.locator('th', { hasText: 'QR string' }) })
      .locator('td');
    await cell.waitFor();
    assert.ok(norm(await cell.textContent()).length > 100, 'a real QR payload');
    const box = await cell.evaluate((td) => td.getBoundingClientRect().right);
    assert.ok(box <= width, `QR string ends at ${box} px at ${width} px`);
    const o = await overflow(buyer);
    assert.ok(o.scrollWidth <= width, `page ${o.scrollWidth} px at ${width} px`);
    assert.equal(await text('h1', buyer), 'Pay Rp 45.000 with QRIS');
  }
  await screenshot(buyer, 'checkout-qris-phone');
  await buyer.close();
});

test('card checkout page: the heading and amount in the currency format, $19.99', async () => {
  const p = await createPayment(gw, app, 'card', 1999);
  const buyer = await browser.context.newPage();
  await buyer.goto(await checkoutUrl(p.id));
  assert.equal(await text('h1', buyer), 'Pay $19.99');
  assert.equal((await rows(buyer)).Amount, '$19.99');
  await screenshot(buyer, 'checkout-card');
  await buyer.close();
});

test('wallet checkout page: €25.99 and the order status in words', async () => {
  const p = await createPayment(gw, app, 'wallet', 2599);
  const buyer = await browser.context.newPage();
  await buyer.goto(await checkoutUrl(p.id));
  assert.equal(await text('h1', buyer), 'Pay €25.99 with your wallet');
  const table = await rows(buyer);
  assert.equal(table.Amount, '€25.99');
  assert.equal(table.Status, 'Waiting for your approval');
  assert.ok(!(await buyer.content()).includes('PAYER_ACTION_REQUIRED'));
  await screenshot(buyer, 'checkout-wallet');
  await buyer.close();
});
