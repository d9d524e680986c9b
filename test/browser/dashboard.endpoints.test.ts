/**
 * Webhook endpoints in the dashboard (docs/api.md#webhook-endpoints), in Chromium against a
 * real gateway and real receivers: create with a filter (the secret shown once), the last
 * attempts with the receiver's answer, rotation with the window shown, recover, disable.
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
import { paidPayment } from '../helpers/payments.js';
import { Receiver } from '../helpers/receiver.js';

let gw: TestGateway;
let browser: Browser;
let page: Page;
let app: AppWithSecrets;
const refusing = new Receiver();
const finance = new Receiver();

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway({ DELIVERY_MAX_ATTEMPTS: '1' });
  await refusing.start();
  await finance.start();
  refusing.behaviour = () => ({ status: 400, body: 'unknown order A-17' });
  app = await gw.createApp({ name: 'Endpoint shop' });
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await refusing.stop();
  await finance.stop();
  await gw?.stop();
});

async function createEndpoint(url: string, kinds: string[] | '*'): Promise<string> {
  await page.getByRole('button', { name: 'New endpoint' }).click();
  const form = page.getByRole('form', { name: 'New endpoint' });
  await form.getByLabel('URL').fill(url);
  if (kinds !== '*') {
    await form.getByLabel('every kind (*)').uncheck();
    for (const k of kinds) await form.getByLabel(k, { exact: true }).check();
  }
  await form.getByRole('button', { name: 'Create endpoint' }).click();
  const panel = page.getByRole('region', { name: 'New secret' });
  await panel.waitFor();
  const secret = norm(await panel.locator('[data-field="secret"]').textContent()).split(' ')[0];
  await panel.getByRole('button', { name: 'Done' }).click();
  return secret ?? '';
}

test('create with filters, see the answers of the last attempts, rotate with a window, recover, disable', async () => {
  await page.goto(`${gw.url}/dashboard/apps`);
  const card = page.locator(`li.app[data-app-id="${app.app_id}"]`);
  await card.getByRole('link', { name: 'Webhook endpoints' }).click();
  await page.getByRole('heading', { name: /Webhook endpoints of Endpoint shop/ }).waitFor();

  const financeSecret = await createEndpoint(finance.url, ['refund.succeeded']);
  assert.match(financeSecret, /^whsec_[0-9a-f]{64}$/);
  const refusingSecret = await createEndpoint(refusing.url, '*');
  assert.match(refusingSecret, /^whsec_[0-9a-f]{64}$/);
  const items = page.locator('li[data-endpoint-id]');
  assert.equal(await items.count(), 2);
  assert.equal(
    norm(await items.nth(0).locator('[data-field="event_types"]').textContent()),
    'refund.succeeded',
  );
  await screenshot(page, 'endpoints-list');

  await paidPayment(gw, app, 'idr', 1000);
  await refusing.waitFor(1);
  const refusingCard = items.nth(1);
  await refusingCard.getByRole('button', { name: 'Stats and attempts' }).click();
  const stats = refusingCard.getByRole('region', { name: 'Endpoint stats' });
  await stats.locator('[data-field="response_body"]').getByText('unknown order A-17').waitFor();
  assert.match(
    norm(await stats.locator('[data-field="stats"]').textContent()),
    /^1 attempts, 0 delivered, success rate 0\.0 %/,
  );
  await screenshot(page, 'endpoint-stats');

  await refusingCard.getByRole('button', { name: 'Rotate secret…' }).click();
  const rotate = page.getByRole('dialog', { name: "Rotate this endpoint's secret?" });
  await rotate.getByLabel(/Grace window/).fill('24');
  await rotate.getByRole('button', { name: 'Rotate secret', exact: true }).click();
  const panel = page.getByRole('region', { name: 'New secret' });
  await panel.waitFor();
  assert.match(
    norm(await panel.locator('[data-field="rotation-note"]').textContent()),
    /X-PAY-Signature-Next/,
  );
  await panel.getByRole('button', { name: 'Done' }).click();
  await refusingCard.locator('[data-field="rotation"]').waitFor();
  assert.match(
    norm(await refusingCard.locator('[data-field="rotation"]').textContent()),
    /^old secret signs until /,
  );

  refusing.behaviour = () => ({ status: 200 });
  await refusingCard.getByRole('button', { name: 'Recover…' }).click();
  const recover = page.getByRole('dialog', { name: 'Recover missed events?' });
  await recover.getByRole('button', { name: 'Recover', exact: true }).click();
  await page
    .locator('#action-result')
    .getByText(`${refusing.url}: 1 deliveries enqueued.`)
    .waitFor();
  await refusing.waitFor(2);

  await refusingCard.getByRole('button', { name: 'Disable' }).click();
  await refusingCard
    .locator('[data-field="disabled_reason"]')
    .getByText('disabled by an operator')
    .waitFor();
  const listed = await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints`);
  assert.deepEqual(
    listed.json<{ endpoints: { disabled: boolean }[] }>().endpoints.map((e) => e.disabled),
    [false, true],
  );
  await screenshot(page, 'endpoint-disabled');
});
