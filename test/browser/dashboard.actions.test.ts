/**
 * The dashboard's actions in Chromium against a real gateway: cancel, refund and retry-webhook
 * on the payment detail page (each confirmed, each ending in the state the admin API reports),
 * retry from the dead deliveries screen, and apps: create (secrets shown once), edit,
 * regenerate keys.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AppView, AppWithSecrets } from '../helpers/contract.js';
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
import { createPayment, paidPayment } from '../helpers/payments.js';
import { Receiver } from '../helpers/receiver.js';

interface Detail {
  id: string;
  status: string;
  refund: { id: string; status: string; amount_minor: number; reason: string } | null;
  deliveries: { delivery_id: string; status: string; attempts: unknown[] }[];
}

let gw: TestGateway;
let browser: Browser;
let page: Page;
let app: AppWithSecrets;
const receiver = new Receiver();

before(async () => {
  await ensureDashboardBuilt();
  gw = await startTestGateway({ DELIVERY_MAX_ATTEMPTS: '2' });
  await receiver.start();
  app = await gw.createApp({ name: 'Hook shop', webhook_url: receiver.url });
  receiver.secret = app.webhook_secret;
  browser = await launchBrowser();
  page = await signedInPage(browser, gw.url, ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
  await receiver.stop();
});

async function detail(id: string): Promise<Detail> {
  const res = await gw.admin('GET', `/admin/payments/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.json<Detail>();
}

async function text(selector: string): Promise<string> {
  const loc = page.locator(selector).first();
  await loc.waitFor();
  return norm(await loc.textContent());
}

async function openPayment(id: string): Promise<void> {
  await page.goto(`${gw.url}/dashboard/payments/${id}`);
  await page.locator('[data-field="status"] dd').first().waitFor();
}

/** Clicks the action, checks the confirmation dialog, then confirms. */
async function confirmAction(button: string, dialogTitle: string, confirm: string) {
  await page.getByRole('button', { name: button }).click();
  const dialog = page.getByRole('dialog', { name: dialogTitle });
  await dialog.waitFor();
  return { dialog, go: () => dialog.getByRole('button', { name: confirm, exact: true }).click() };
}

test('payment detail: every field, last_error, deliveries with attempts, raw inbound events', async () => {
  const p = await paidPayment(gw, app, 'idr', 150_000);
  await receiver.waitFor(1);
  await eventually(
    async () => ((await detail(p.id)).deliveries[0]?.status === 'delivered' ? true : undefined),
    'the delivery',
  );
  await openPayment(p.id);
  const d = await detail(p.id);
  for (const k of Object.keys(d).filter(
    // Nested values have sections of their own (disputes: dashboard.disputes.test.ts).
    (k) => !['refund', 'disputes', 'deliveries', 'metadata', 'last_error'].includes(k),
  )) {
    assert.equal(await page.locator(`dl.fields > [data-field="${k}"]`).count(), 1, k);
  }
  assert.equal(await text('[data-field="amount_minor"] dd'), money(150_000, 'IDR'));
  assert.equal(await text('.last-error'), 'Last error: none');
  // Times are local (Asia/Jakarta here) with UTC in the title.
  const created = page.locator('[data-field="created_at"] time');
  assert.match((await created.getAttribute('title')) ?? '', / UTC$/);
  assert.equal(await page.locator('.delivery').count(), d.deliveries.length);
  assert.equal(await text('.delivery .badge'), 'delivered');
  const cells = (await page.locator('.delivery .attempts tbody tr td').allTextContents()).map(norm);
  assert.equal(cells[0], '1');
  assert.equal(cells[2], '200');
  await page.locator('.event summary').first().click();
  const raw = await text('.event pre.raw');
  assert.ok(raw.includes(p.providerRef) || raw.includes(p.id), 'the raw body names the payment');
  await screenshot(page, 'payment-detail');
});

test('cancel an initiated payment: confirmed, then canceled as the API reports', async () => {
  const p = await createPayment(gw, app, 'idr', 42_000);
  await openPayment(p.id);
  assert.equal(await text('[data-field="status"] dd'), 'initiated');
  const { dialog, go } = await confirmAction(
    'Cancel payment…',
    'Cancel this payment?',
    'Cancel payment',
  );
  // Escape closes the dialog without doing anything.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal((await detail(p.id)).status, 'initiated');
  await page.getByRole('button', { name: 'Cancel payment…' }).click();
  await dialog.waitFor();
  await screenshot(page, 'confirm-cancel');
  await go();
  await page.locator('#action-result').waitFor();
  assert.match(await text('#action-result'), /Payment canceled/);
  await eventually(
    async () => ((await text('[data-field="status"] dd')) === 'canceled' ? true : undefined),
    'the canceled status on screen',
  );
  assert.equal((await detail(p.id)).status, 'canceled');
  assert.equal(await page.getByRole('button', { name: 'Cancel payment…' }).isDisabled(), true);
});

test('refund a paid idr_psp payment with amount and reason', async () => {
  const p = await paidPayment(gw, app, 'idr', 80_000);
  await openPayment(p.id);
  await page.getByLabel('Amount (IDR)').fill('80000');
  await page.getByLabel('Reason').fill('damaged goods');
  const { dialog, go } = await confirmAction('Refund…', 'Refund this payment?', 'Refund');
  assert.match(norm(await dialog.textContent()), /Refund IDR 80,000 \(reason: damaged goods\)/);
  await go();
  await page.locator('#action-result').waitFor();
  const d = await detail(p.id);
  assert.ok(d.refund, 'the API has the refund');
  assert.equal(d.refund.amount_minor, 80_000);
  assert.equal(d.refund.reason, 'damaged goods');
  assert.match(await text('#action-result'), new RegExp(`Refund ${d.refund.id} created`));
  const section = page.locator('section[aria-labelledby="refund-title"]');
  await section.locator('[data-field="id"]').waitFor();
  assert.equal(norm(await section.locator('[data-field="id"] dd').textContent()), d.refund.id);
  assert.equal(
    norm(await section.locator('[data-field="status"] dd').textContent()),
    d.refund.status,
  );
  // One refund per payment: the form is gone.
  assert.equal(await page.getByRole('button', { name: 'Refund…' }).count(), 0);
  await screenshot(page, 'payment-refunded');
});

test('retry webhook from the detail page and from dead deliveries', async () => {
  receiver.behaviour = () => ({ status: 500, body: '{"error":"orders database unavailable"}' });
  const before = receiver.received.length;
  const a = await paidPayment(gw, app, 'idr', 10_000);
  const b = await paidPayment(gw, app, 'idr', 20_000);
  const dead = async () => {
    const res = await gw.admin('GET', '/admin/deliveries?status=dead');
    const list = res.json<{ deliveries: { payment_id: string }[] }>().deliveries;
    return [a.id, b.id].every((id) => list.some((x) => x.payment_id === id)) ? true : undefined;
  };
  await eventually(dead, 'two dead deliveries');
  assert.ok(receiver.received.length >= before + 4);
  receiver.behaviour = () => ({ status: 200 });

  await openPayment(a.id);
  assert.equal(await text('.delivery .badge'), 'dead');
  // Each attempt shows what the app answered beside its status.
  assert.deepEqual(
    (await page.locator('.delivery .attempts [data-field="response_body"]').allTextContents()).map(
      norm,
    ),
    ['{"error":"orders database unavailable"}', '{"error":"orders database unavailable"}'],
  );
  const { go } = await confirmAction('Retry webhook…', 'Send the webhook again?', 'Retry webhook');
  await go();
  await page.locator('#action-result').waitFor();
  const delivered = async (id: string) =>
    (await detail(id)).deliveries.some((d) => d.status === 'delivered') ? true : undefined;
  await eventually(() => delivered(a.id), 'the redelivery of a');
  await page.reload();
  await page.locator('.delivery').nth(1).waitFor();
  const badges = (await page.locator('.delivery .event-head .badge').allTextContents()).map(norm);
  assert.deepEqual(badges.sort(), ['dead', 'delivered']);

  await page.getByRole('link', { name: 'Dead deliveries' }).click();
  const row = page.locator('#deliveries-table tbody tr', { hasText: b.id.slice(0, 8) });
  await row.waitFor();
  assert.equal(
    norm(await row.locator('[data-field="last_answer"] .error-text').textContent()),
    'HTTP 500',
  );
  assert.equal(
    norm(await row.locator('[data-field="last_answer"] code.answer-body').textContent()),
    '{"error":"orders database unavailable"}',
  );
  await screenshot(page, 'deliveries-dead');
  await row.getByRole('button', { name: 'Retry…' }).click();
  await page.getByRole('dialog', { name: 'Retry this webhook?' }).waitFor();
  await page.getByRole('button', { name: 'Retry webhook', exact: true }).click();
  await page.locator('#action-result').waitFor();
  assert.match(await text('#action-result'), new RegExp(`Payment ${b.id}: webhook re-enqueued`));
  await eventually(() => delivered(b.id), 'the redelivery of b');
});

test('apps: create shows the secrets once; they work; the list and a reload never show them', async () => {
  await page.getByRole('link', { name: 'Apps' }).click();
  await page.getByRole('button', { name: 'New app' }).click();
  const form = page.locator('form.app-form');
  await form.getByLabel('Name').fill('Night market');
  await form.getByLabel('Webhook URL').fill('https://night.example/hook');
  await form.locator('input[name="provider-card_psp"]').uncheck();
  await form.getByLabel('va_permata').uncheck();
  await form.getByRole('button', { name: 'Create app' }).click();
  const panel = page.getByRole('region', { name: 'App "Night market" created' });
  await panel.waitFor();
  const secret = async (k: string) => panel.locator(`#secret-${k}`).inputValue();
  const apiKey = await secret('api_key');
  const signing = await secret('signing_secret');
  const webhook = await secret('webhook_secret');
  assert.match(apiKey, /^pk_/);
  assert.match(signing, /^sk_/);
  assert.match(webhook, /^whsec_/);
  assert.equal(await panel.getByRole('button', { name: /^Copy / }).count(), 3);
  await screenshot(page, 'app-created');

  const list = (await gw.admin('GET', '/admin/apps')).json<{ apps: AppView[] }>().apps;
  const created = list.find((x) => x.api_key === apiKey);
  assert.ok(created, 'the API lists the new app');
  assert.deepEqual(created.allowed_providers, ['idr_psp', 'wallet_psp']);
  assert.deepEqual(created.allowed_methods.idr_psp, [
    'qris',
    'va_bca',
    'va_mandiri',
    'va_bni',
    'va_bri',
  ]);
  assert.equal(created.webhook_url, 'https://night.example/hook');
  // The shown signing secret is the real one: a signed request with it is accepted.
  const keys = { ...created, signing_secret: signing, webhook_secret: webhook };
  assert.equal((await gw.v1(keys, 'GET', `/v1/payments/${'0'.repeat(32)}`)).status, 404);

  // The list under the panel shows the key, never the secrets; dismissing or reloading
  // leaves no trace of them.
  const html = async () => page.locator('ul.app-list').innerHTML();
  await page.locator(`li.app[data-app-id="${created.app_id}"]`).waitFor();
  assert.ok(!(await html()).includes(signing));
  await panel.getByRole('button', { name: 'I have stored them' }).click();
  await panel.waitFor({ state: 'hidden' });
  assert.ok(!(await page.content()).includes(signing));
  await page.reload();
  await page.locator(`li.app[data-app-id="${created.app_id}"]`).waitFor();
  const after = await page.content();
  assert.ok(!after.includes(signing) && !after.includes(webhook));
  await screenshot(page, 'apps');
});

test('apps: edit the webhook URL and allowed methods', async () => {
  const target = (await gw.admin('GET', '/admin/apps'))
    .json<{ apps: AppView[] }>()
    .apps.find((x) => x.name === 'Night market');
  assert.ok(target);
  const card = page.locator(`li.app[data-app-id="${target.app_id}"]`);
  await card.getByRole('button', { name: 'Edit' }).click();
  const form = card.locator('form.app-form');
  await form.getByLabel('Webhook URL').fill('https://night.example/v2/hook');
  await form.locator('input[name="provider-card_psp"]').check();
  await form.getByLabel('qris').uncheck();
  await screenshot(page, 'app-edit');
  await form.getByRole('button', { name: 'Save' }).click();
  await card
    .locator('[data-field="webhook_url"]')
    .getByText('https://night.example/v2/hook')
    .waitFor();
  const after = (await gw.admin('GET', '/admin/apps'))
    .json<{ apps: AppView[] }>()
    .apps.find((x) => x.app_id === target.app_id);
  assert.equal(after?.webhook_url, 'https://night.example/v2/hook');
  assert.deepEqual(after?.allowed_providers, ['idr_psp', 'card_psp', 'wallet_psp']);
  assert.deepEqual(after?.allowed_methods.idr_psp, ['va_bca', 'va_mandiri', 'va_bni', 'va_bri']);
  assert.equal(after?.mode, 'test');
});

test('apps: regenerate keys after a confirmation; the old key stops working', async () => {
  const card = page.locator(`li.app[data-app-id="${app.app_id}"]`);
  const { dialog, go } = await (async () => {
    await card.getByRole('button', { name: 'Regenerate keys…' }).click();
    const d = page.getByRole('dialog', { name: "Regenerate this app's keys?" });
    await d.waitFor();
    return {
      dialog: d,
      go: () => d.getByRole('button', { name: 'Regenerate keys', exact: true }).click(),
    };
  })();
  assert.match(norm(await dialog.textContent()), /Hook shop/);
  await screenshot(page, 'confirm-regenerate');
  await go();
  const panel = page.getByRole('region', { name: 'New keys for "Hook shop"' });
  await panel.waitFor();
  const apiKey = await panel.locator('#secret-api_key').inputValue();
  const signing = await panel.locator('#secret-signing_secret').inputValue();
  assert.notEqual(apiKey, app.api_key);
  assert.notEqual(signing, app.signing_secret);
  await card.locator('[data-field="api_key"]').getByText(apiKey).waitFor();
  const probe = `/v1/payments/${'0'.repeat(32)}`;
  assert.equal((await gw.v1(app, 'GET', probe)).status, 401);
  assert.equal(
    (await gw.v1({ ...app, api_key: apiKey, signing_secret: signing }, 'GET', probe)).status,
    404,
  );
  await screenshot(page, 'app-regenerated');
});
