/**
 * A buyer in Chromium walks through the example shop beside a real gateway: product page,
 * the provider's test checkout page, Pay or Fail, back to the shop's order page, which
 * shows the outcome the gateway's webhook reported.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startShop, type RunningShop } from '../../examples/shop/shop.js';
import { launchBrowser, norm, screenshot, type Browser } from '../helpers/browser.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let shop: RunningShop;
let browser: Browser;

before(async () => {
  gw = await startTestGateway();
  shop = await startShop({ gatewayUrl: gw.url, adminToken: ADMIN_TOKEN, port: 0 });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await shop?.stop();
  await gw?.stop();
});

/** Buys a product and presses one button on the provider's checkout page. */
async function buy(page: Page, product: string, button: 'Pay' | 'Fail'): Promise<void> {
  await page.goto(shop.url);
  await page.getByRole('button', { name: `Buy ${product} with QRIS` }).click();
  await page.waitForURL(/\/sim\/idr_psp\//);
  assert.match(norm(await page.locator('h1').textContent()), /^Pay Rp/);
  await page.getByRole('button', { name: button }).click();
  await page.getByRole('link', { name: 'Return to merchant' }).click();
  await page.waitForURL(new RegExp(`^${shop.url}/orders/[0-9a-f]{16}$`));
}

test('pay: the order page turns to Paid and lists the payment.succeeded webhook', async () => {
  const page = await browser.context.newPage();
  await buy(page, 'Kopi Toraja', 'Pay');
  const status = page.locator('#status');
  await status.filter({ hasText: 'Paid' }).waitFor();
  assert.equal(await status.getAttribute('data-status'), 'succeeded');
  await page.locator('#events li', { hasText: 'payment.succeeded' }).waitFor();
  assert.equal(await page.locator('#pay').isVisible(), false);
  await screenshot(page, 'shop-paid');
  await page.close();
});

test('fail: the order page turns to Payment failed and lists the payment.failed webhook', async () => {
  const page = await browser.context.newPage();
  await buy(page, 'Teh Melati', 'Fail');
  const status = page.locator('#status');
  await status.filter({ hasText: 'Payment failed' }).waitFor();
  assert.equal(await status.getAttribute('data-status'), 'failed');
  await page.locator('#events li', { hasText: 'payment.failed' }).waitFor();
  await screenshot(page, 'shop-failed');
  await page.close();
});

test('the order page updates live while the buyer watches it', async () => {
  const page = await browser.context.newPage();
  await page.goto(shop.url);
  await page.getByRole('button', { name: 'Buy Kopi Toraja with QRIS' }).click();
  await page.waitForURL(/\/sim\/idr_psp\//);
  const order = [...shop.orders.values()].at(-1);
  assert.ok(order);
  // The buyer opens the order page first; the payment happens elsewhere (another device).
  await page.goto(`${shop.url}/orders/${order.id}`);
  await page.locator('#status', { hasText: 'Waiting for payment' }).waitFor();
  const detail = await gw.admin('GET', `/admin/payments/${order.paymentId}`);
  assert.equal(detail.status, 200, detail.text);
  const ref = detail.json<{ provider_ref: string }>().provider_ref;
  const res = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/pay`, {
    method: 'POST',
  });
  assert.equal(res.status, 200);
  await page.locator('#status', { hasText: 'Paid' }).waitFor();
  await page.locator('#events li', { hasText: 'payment.succeeded' }).waitFor();
  await page.close();
});
