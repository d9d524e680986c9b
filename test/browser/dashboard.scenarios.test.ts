/**
 * The dashboard marks a test-mode payment that ran a provider fault scenario
 * (metadata.test_scenario, docs/testing.md) in the payments list and on its detail page, and
 * leaves every other payment unmarked.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AppWithSecrets } from '../helpers/contract.js';
import {
  ensureDashboardBuilt,
  launchBrowser,
  norm,
  screenshot,
  signedInPage,
  type Browser,
} from '../helpers/browser.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let browser: Browser;
let page: Page;
let app: AppWithSecrets;

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Scenario shop' });
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

async function create(metadata: Record<string, unknown>): Promise<string> {
  const res = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'buyer-badge',
    email: 'buyer@example.com',
    amount_minor: 25_000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
    metadata,
  });
  assert.equal(res.status, 201, res.text);
  return res.json<{ payment_id: string }>().payment_id;
}

test('a scenario payment carries a badge in the list and on its page; a plain one none', async () => {
  const marked = await create({ order: 'O-1', test_scenario: 'lost_webhook' });
  const plain = await create({ order: 'O-2' });

  await page.goto(`${gw.url}/dashboard/payments`);
  const markedRow = page.locator(`#payments-table tr[data-id="${marked}"]`);
  await markedRow.waitFor();
  const badge = markedRow.locator('.badge-scenario');
  assert.equal(norm(await badge.textContent()), 'test scenario: lost_webhook');
  assert.equal(await badge.getAttribute('data-test-scenario'), 'lost_webhook');
  const plainRow = page.locator(`#payments-table tr[data-id="${plain}"]`);
  await plainRow.waitFor();
  assert.equal(await plainRow.locator('.badge-scenario').count(), 0);
  await screenshot(page, 'payments-scenario-badge');

  await page.goto(`${gw.url}/dashboard/payments/${marked}`);
  await page.locator('[data-field="status"] dd').first().waitFor();
  assert.equal(
    norm(await page.locator('.badge-scenario').first().textContent()),
    'test scenario: lost_webhook',
  );
  await page.goto(`${gw.url}/dashboard/payments/${plain}`);
  await page.locator('[data-field="status"] dd').first().waitFor();
  assert.equal(await page.locator('.badge-scenario').count(), 0);
});
