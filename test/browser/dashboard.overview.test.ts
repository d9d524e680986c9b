/**
 * The operator dashboard in Chromium against a real gateway with seeded data: sign-in and
 * sign-out, the overview's figures against the admin API, payments paging and filters, and
 * the read-only screens. Screenshots go to test-results/screenshots/.
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
  readmeScreenshot,
  screenshot,
  signIn,
  type Browser,
} from '../helpers/browser.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createPayment, paidPayment, simAction } from '../helpers/payments.js';

interface CurrencyRow {
  currency: string;
  succeeded_count: number;
  succeeded_minor: number;
  refunded_minor: number;
  net_minor: number;
}
interface Summary {
  by_app: { app_id: string; app_name: string; succeeded_count: number }[];
  by_provider: { provider: string; succeeded_count: number }[];
  by_currency: CurrencyRow[];
}
interface PaymentRow {
  id: string;
  status: string;
}

let gw: TestGateway;
let browser: Browser;
let page: Page;
let shop: AppWithSecrets;
let store: AppWithSecrets;
const created: string[] = [];

before(async () => {
  await ensureDashboardBuilt();
  // Two attempts, then dead: apps without a webhook_url give dead deliveries to look at.
  gw = await startTestGateway({ DELIVERY_MAX_ATTEMPTS: '2' });
  shop = await gw.createApp({ name: 'Coffee shop' });
  store = await gw.createApp({ name: 'Web store' });
  for (const amount of [150_000, 75_000, 20_000])
    created.push((await paidPayment(gw, shop, 'idr', amount)).id);
  created.push((await paidPayment(gw, shop, 'va', 50_000)).id);
  created.push((await createPayment(gw, shop, 'idr', 30_000)).id);
  const failed = await createPayment(gw, shop, 'idr', 12_500);
  await simAction(gw, 'idr', failed.providerRef, 'fail');
  created.push(failed.id);
  const card = await paidPayment(gw, store, 'card', 1234);
  await simAction(gw, 'card', card.providerRef, 'refund');
  created.push(card.id);
  created.push((await paidPayment(gw, store, 'wallet', 2599)).id);
  browser = await launchBrowser();
  page = await browser.context.newPage();
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

async function text(page: Page, selector: string): Promise<string> {
  const loc = page.locator(selector).first();
  await loc.waitFor();
  return norm(await loc.textContent());
}

async function apiJson<T>(path: string): Promise<T> {
  const res = await gw.admin('GET', path);
  assert.equal(res.status, 200, res.text);
  return res.json<T>();
}

test('a wrong token stays on the sign-in screen with an error', async () => {
  await page.goto(`${gw.url}/dashboard`);
  await page.getByRole('heading', { name: 'Paygate operator' }).waitFor();
  await screenshot(page, 'signin');
  await signIn(page, 'not-the-admin-token');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(norm(await alert.textContent()), /refused this token \(401/);
  assert.equal(await page.getByLabel('Admin token').isVisible(), true);
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  await screenshot(page, 'signin-error');
});

test('sign-in (keyboard only) keeps the token in sessionStorage only, never in the URL', async () => {
  // The token field has focus; typing and Enter sign in.
  await page.getByLabel('Admin token').fill('');
  await page.keyboard.type(ADMIN_TOKEN);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  // Focus moves to the screen's heading; Tab continues into its controls; Shift+Tab goes
  // back through the header (Sign out, the search box and its button, then the navigation
  // links from the last: Operators, Audit log, Stuck, Dead deliveries, Apps, Balances,
  // Reconciliation, Ledger, Disputes, Refunds, Payments).
  const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
  // The heading takes focus in an effect that runs after the screen is drawn (PageTitle); under
  // load the heading can be visible before it does, and a Tab pressed then starts from the
  // body. Wait for the focus itself, not a time.
  await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
  assert.equal(await focused(), 'Overview');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'days');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focused(), 'Sign out');
  // Back through the navigation to Payments: one more stop each since the Ledger and the
  // Disputes entries (issue 24), the Reconciliation entry (issue 27) and the Operators entry
  // (issue 26).
  for (let i = 0; i < 13; i++) await page.keyboard.press('Shift+Tab');
  assert.equal(await focused(), 'Payments');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Payments' }).waitFor();
  await page.goBack();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  assert.equal(
    await page.evaluate(() => sessionStorage.getItem('paygate.adminToken')),
    ADMIN_TOKEN,
  );
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  assert.ok(!page.url().includes(ADMIN_TOKEN));
  // A reload keeps the session (same tab).
  await page.reload();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
});

test('overview: per-currency figures, by app and by provider equal the API', async () => {
  await page.goto(`${gw.url}/dashboard/?days=30`);
  const s = await apiJson<Summary>('/admin/summary?days=30');
  const active = s.by_currency.filter((c) => c.succeeded_count > 0 || c.refunded_minor !== 0);
  assert.deepEqual(active.map((c) => c.currency).sort(), ['EUR', 'IDR', 'USD']);
  for (const c of active) {
    const card = `article.currency[data-currency="${c.currency}"]`;
    assert.equal(
      await text(page, `${card} [data-field="succeeded_count"]`),
      String(c.succeeded_count),
    );
    for (const f of ['succeeded_minor', 'refunded_minor', 'net_minor'] as const) {
      assert.equal(
        await text(page, `${card} [data-field="${f}"]`),
        money(c[f], c.currency),
        `${c.currency} ${f}`,
      );
      assert.equal(
        await page.locator(`${card} [data-field="${f}"] .money`).getAttribute('data-minor'),
        String(c[f]),
      );
    }
  }
  // The seeded figures, so a dashboard and an API that agree on nonsense still fail.
  assert.equal(
    await text(page, 'article[data-currency="IDR"] [data-field="net_minor"]'),
    money(295_000, 'IDR'),
  );
  assert.equal(
    await text(page, 'article[data-currency="USD"] [data-field="refunded_minor"]'),
    money(1234, 'USD'),
  );
  assert.equal(
    await text(page, 'article[data-currency="USD"] [data-field="net_minor"]'),
    money(0, 'USD'),
  );
  assert.equal(
    await text(page, 'article[data-currency="EUR"] [data-field="succeeded_minor"]'),
    'EUR 25.99',
  );

  for (const a of s.by_app) {
    const row = `#table-by-app tr[data-app-id="${a.app_id}"]`;
    assert.match(await text(page, `${row} th`), new RegExp(a.app_name));
    assert.equal(await text(page, `${row} td:nth-of-type(2)`), String(a.succeeded_count));
  }
  assert.equal(await page.locator('#table-by-app tbody tr').count(), s.by_app.length);
  for (const p of s.by_provider) {
    const row = `#table-by-provider tr[data-provider="${p.provider}"]`;
    assert.equal(await text(page, `${row} td:nth-of-type(1)`), String(p.succeeded_count));
  }

  // One chart per currency that sold something, its table equal to the timeseries.
  const t = await apiJson<{
    buckets: { day: string; currency: string; succeeded_count: number; succeeded_minor: number }[];
  }>('/admin/timeseries?days=30');
  for (const currency of ['EUR', 'IDR', 'USD']) {
    const fig = page.locator(`figure[data-currency="${currency}"]`);
    await fig.locator('canvas').first().waitFor();
    const rows = t.buckets.filter((b) => b.currency === currency && b.succeeded_count > 0);
    const cells = await fig.locator('tbody tr td:nth-child(3)').allTextContents();
    assert.deepEqual(
      cells.map(norm),
      rows.map((b) => money(b.succeeded_minor, currency)),
    );
  }
  assert.equal(await page.locator('figure[data-currency="GBP"]').count(), 0);
  await screenshot(page, 'overview');
  await readmeScreenshot(page);

  // The same screen on a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.locator('article.currency[data-currency="IDR"]').waitFor();
  await page.locator('figure[data-currency="IDR"] canvas').first().waitFor();
  await screenshot(page, 'overview-phone');
  await page.setViewportSize({ width: 1280, height: 860 });
});

test('overview: the mode filter asks the API for that mode', async () => {
  await page.goto(`${gw.url}/dashboard/?days=7`);
  await page.locator('article.currency[data-currency="IDR"]').waitFor();
  await page.getByLabel('Mode').selectOption('live');
  await page.getByText('No payments in this window.').first().waitFor();
  assert.ok(page.url().endsWith('/dashboard/?days=7&mode=live'));
  const live = await apiJson<Summary>('/admin/summary?days=7&mode=live');
  assert.ok(live.by_currency.every((c) => c.succeeded_count === 0));
});

test('payments: newest first, paging with limit and before, status filter, open by id', async () => {
  await page.goto(`${gw.url}/dashboard/payments?limit=3`);
  const ids = async () => {
    await page.locator('#payments-table tbody tr').first().waitFor();
    return page
      .locator('#payments-table tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
  };
  const first = await apiJson<{ payments: PaymentRow[] }>('/admin/payments?limit=3');
  assert.deepEqual(
    await ids(),
    first.payments.map((p) => p.id),
  );
  assert.equal(first.payments[0]?.id, created[created.length - 1]);
  await screenshot(page, 'payments');

  await page.getByRole('button', { name: 'Older →' }).click();
  const second = await apiJson<{ payments: PaymentRow[] }>(
    `/admin/payments?limit=3&before=${first.payments[2]?.id}`,
  );
  await eventually(
    async () => ((await ids())[0] === second.payments[0]?.id ? true : undefined),
    'the second page',
  );
  assert.deepEqual(
    await ids(),
    second.payments.map((p) => p.id),
  );
  await page.getByRole('button', { name: 'Older →' }).click();
  const third = await apiJson<{ payments: PaymentRow[] }>(
    `/admin/payments?limit=3&before=${second.payments[2]?.id}`,
  );
  await eventually(
    async () => ((await ids())[0] === third.payments[0]?.id ? true : undefined),
    'the third page',
  );
  assert.deepEqual(
    await ids(),
    third.payments.map((p) => p.id),
  );
  // 8 payments: the third page has two and no older page.
  assert.equal(third.payments.length, 2);
  assert.equal(await page.getByRole('button', { name: 'Older →' }).isDisabled(), true);
  await page.getByRole('button', { name: '← Newer' }).click();
  await eventually(
    async () => ((await ids())[0] === second.payments[0]?.id ? true : undefined),
    'back to the second page',
  );

  await page.getByLabel('Status').selectOption('failed');
  await eventually(
    async () => ((await ids()).length === 1 ? true : undefined),
    'the failed payment only',
  );
  const failed = await apiJson<{ payments: PaymentRow[] }>('/admin/payments?limit=3&status=failed');
  assert.deepEqual(
    await ids(),
    failed.payments.map((p) => p.id),
  );

  const target = created[1] as string;
  await page.getByLabel('Open payment by id').fill(target);
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('.title-id').getByText(target).waitFor();
  assert.equal(await text(page, '[data-field="status"] dd'), 'succeeded');
  assert.ok(page.url().endsWith(`/dashboard/payments/${target}`));
});

test('refunds, balances and payouts, dead deliveries render what the API has', async () => {
  await page.getByRole('link', { name: 'Refunds' }).click();
  await page.locator('#refunds-table tbody tr').first().waitFor();
  const refunds = await apiJson<{ refunds: { id: string }[] }>('/admin/refunds');
  assert.equal(await page.locator('#refunds-table tbody tr').count(), refunds.refunds.length);
  assert.match(await text(page, '#refunds-table tbody tr'), /USD 12\.34/);
  await screenshot(page, 'refunds');

  await page.getByRole('link', { name: 'Balances' }).click();
  await page.locator('#balances-table tbody tr').first().waitFor();
  const b = await apiJson<{ balances: { source: string }[] }>('/admin/balances');
  assert.equal(await page.locator('#balances-table tbody tr').count(), b.balances.length);
  for (const source of new Set(b.balances.map((x) => x.source)))
    assert.ok((await page.locator(`#balances-table tr[data-source="${source}"]`).count()) > 0);
  await page.locator('article.payout').first().waitFor();
  await screenshot(page, 'balances');

  await eventually(async () => {
    const d = await apiJson<{ deliveries: unknown[] }>('/admin/deliveries?status=dead');
    return d.deliveries.length >= 3 ? true : undefined;
  }, 'dead deliveries');
  await page.getByRole('link', { name: 'Dead deliveries' }).click();
  await page.locator('#deliveries-table tbody tr').first().waitFor();
  const dead = await apiJson<{ deliveries: unknown[] }>('/admin/deliveries?status=dead&limit=200');
  assert.equal(await page.locator('#deliveries-table tbody tr').count(), dead.deliveries.length);
  await screenshot(page, 'deliveries');
});

test('sign-out clears the token; a 401 later returns to the sign-in screen', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Admin token').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('paygate.adminToken')), null);
  await page.goto(`${gw.url}/dashboard/payments`);
  await page.getByLabel('Admin token').waitFor();

  // A token the gateway stops accepting (rotated): the next request answers 401.
  await signIn(page, ADMIN_TOKEN);
  await page.getByRole('heading', { name: 'Payments' }).waitFor();
  // The page's own requests must be done before the token is swapped: one still to start
  // would carry the rejected token, sign out on its 401 (removing it) and leave the reload
  // below without a token, so without the 401 this test is about (seen in one CI run).
  await page.locator('#payments-table tbody tr').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => sessionStorage.setItem('paygate.adminToken', 'rotated-away'));
  // Navigate by the address, not by clicking the header's link: in one CI run on a stalled
  // machine the link was replaced under the click for 10 s (not reproduced in five runs since).
  // Loading with the rejected token takes the same path: the first request answers 401.
  await page.goto(`${gw.url}/dashboard/`);
  await page.getByLabel('Admin token').waitFor();
  assert.match(await text(page, '.notice'), /refused the token \(401\)/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('paygate.adminToken')), null);
});
