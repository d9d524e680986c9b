/**
 * Dashboard sign-in with OpenID Connect in Chromium, against a real OpenID Provider
 * (oidc-provider) in this process: authorization code with PKCE, the session cookie's
 * attributes, CSRF on changes, the cookie withheld from other sites, sign-out ending a copied
 * cookie, failed sign-ins, and the Operators and Audit pages.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  ensureDashboardBuilt,
  launchBrowser,
  screenshot,
  type Browser,
} from '../helpers/browser.js';
import { assertError } from '../helpers/core.js';
import { eventually } from '../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import {
  signInAtProvider,
  startIdentityProvider,
  type IdentityProvider,
} from '../helpers/identityProvider.js';
import { createOperator, type TestOperator } from '../helpers/operators.js';
import { createPayment } from '../helpers/payments.js';

let idp: IdentityProvider;
let gw: TestGateway;
let browser: Browser;
let admin: TestOperator;
/** The dashboard's own address: PUBLIC_BASE_URL's default, http://localhost:<port>. */
let site: string;
/** Another site (127.0.0.1 is not localhost), for the cross-site requests. */
let attacker: http.Server;
let attackerUrl: string;
let attackerPage = '';

before(async () => {
  await ensureDashboardBuilt();
  idp = await startIdentityProvider();
  gw = await startTestGateway(
    {
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
    },
    { workers: false },
  );
  site = gw.running.gw.urls.public;
  idp.allow(`${site}/auth/oidc/callback`);
  admin = await createOperator(gw, 'admin', { email: 'Ana.Admin@example.com' });
  await createOperator(gw, 'support', { email: 'sam@example.com' });
  attacker = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(attackerPage);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  browser = await launchBrowser();
  // Loopback only: the provider's development pages would load a web font from the internet.
  await browser.context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (r) => r.abort());
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await gw?.stop();
  await idp?.stop();
});

/** A fresh sign-in at the provider (its own session from an earlier sign-in forgotten). */
async function signIn(login: string): Promise<Page> {
  await browser.context.clearCookies({ domain: '127.0.0.1' });
  const page = await browser.context.newPage();
  await page.goto(`${site}/dashboard`);
  const button = page.getByRole('link', { name: 'Sign in with single sign-on' });
  await button.waitFor();
  await screenshot(page, 'signin-sso-button');
  await button.click();
  await signInAtProvider(page, login);
  return page;
}

async function sessionCookie() {
  const cookies = await browser.context.cookies(site);
  const found = cookies.find((c) => c.name === 'paygate_session');
  assert.ok(found, `no session cookie among ${cookies.map((c) => c.name).join(', ')}`);
  return found;
}

const withCookie = (value: string, extra: Record<string, string> = {}) => ({
  headers: { cookie: `paygate_session=${value}`, ...extra },
});

test('sign in through the identity provider: the dashboard, as the operator with that email', async () => {
  // The provider matches the email in any case: the account was made as Ana.Admin@...
  const page = await signIn('ana.admin@example.com');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  assert.equal(page.url(), `${site}/dashboard`);
  await page.getByText('Ana.Admin@example.com · admin').waitFor();
  const c = await sessionCookie();
  assert.equal(c.httpOnly, true);
  assert.equal(c.sameSite, 'Strict');
  assert.equal(c.secure, false, 'plain http here; Secure (and __Host-) behind https');
  assert.equal(c.path, '/');
  assert.ok(!(await page.evaluate(() => document.cookie)).includes(c.value), 'HttpOnly');
  const me = await fetch(`${gw.url}/admin/me`, withCookie(c.value));
  assert.equal(me.status, 200);
  const body = (await me.json()) as Record<string, unknown>;
  assert.equal(body.actor, admin.id);
  assert.equal(body.token_name, null);
  assert.match(body.csrf_token as string, /^[A-Za-z0-9_-]{43}$/);
  await screenshot(page, 'signin-oidc-overview');
  await page.close();
});

test('a change with the cookie needs the CSRF token; the dashboard sends it', async () => {
  const page = await browser.context.newPage();
  await page.goto(`${site}/dashboard/apps`);
  await page.getByRole('heading', { name: 'Apps' }).waitFor();
  const bare = await page.evaluate(async () => {
    const res = await fetch('/admin/apps', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'No CSRF' }),
    });
    return { status: res.status, text: await res.text() };
  });
  assert.deepEqual(bare, { status: 403, text: 'forbidden: missing or wrong CSRF token' });
  const c = await sessionCookie();
  const wrong = await fetch(`${gw.url}/admin/apps`, {
    method: 'POST',
    ...withCookie(c.value, { 'x-csrf-token': 'x'.repeat(43), 'content-type': 'application/json' }),
    body: JSON.stringify({ name: 'Wrong CSRF' }),
  });
  assertError(
    {
      status: wrong.status,
      text: await wrong.text(),
      headers: wrong.headers,
      json: () => null as never,
    },
    403,
    'forbidden: missing or wrong CSRF token',
  );
  // Through the dashboard's own form: it sends X-CSRF-Token.
  await page.goto(`${site}/dashboard/operators`);
  await page.getByLabel('Email', { exact: true }).fill('new.person@example.com');
  await page.getByLabel('Name', { exact: true }).fill('New Person');
  await page.getByRole('button', { name: 'Add operator' }).click();
  await page
    .locator('#operators-table td[data-field=email]', { hasText: 'new.person@example.com' })
    .waitFor();
  await screenshot(page, 'signin-operators-page');
  await page.close();
});

test('another site gets nothing from the session cookie: neither a read nor a change', async () => {
  const target = `${site}/admin/operators`;
  // A page on 127.0.0.1 posts a JSON-looking form to the gateway and links to /admin/me.
  attackerPage = `<!doctype html><form id="f" method="post" action="${target}" enctype="text/plain">
    <input name='{"email":"evil@example.com","name":"Evil","role":"admin","pad":"' value='"}'>
    </form><a id="me" href="${site}/admin/me">me</a>`;
  const page = await browser.context.newPage();
  await page.goto(attackerUrl);
  await Promise.all([
    page.waitForURL(target),
    page.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit()),
  ]);
  assert.equal((await page.textContent('body'))?.trim(), 'unauthorized');
  await page.goto(attackerUrl);
  await Promise.all([page.waitForURL(`${site}/admin/me`), page.click('#me')]);
  assert.equal((await page.textContent('body'))?.trim(), 'unauthorized');
  // The same address typed in (a same-site navigation) carries the cookie.
  await page.goto(`${site}/admin/me`);
  assert.match((await page.textContent('body')) ?? '', new RegExp(admin.id));
  const ops = await gw.admin('GET', '/admin/operators');
  assert.ok(!ops.text.includes('evil@example.com'), 'the cross-site form created nothing');
  await page.close();
});

test('sign-out ends the session on the server: a copied cookie stops working', async () => {
  const stolen = (await sessionCookie()).value;
  assert.equal((await fetch(`${gw.url}/admin/apps`, withCookie(stolen))).status, 200);
  const page = await browser.context.newPage();
  await page.goto(`${site}/dashboard`);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('Signed out.').waitFor();
  const res = await fetch(`${gw.url}/admin/apps`, withCookie(stolen));
  assert.equal(res.status, 401);
  assert.equal(await res.text(), 'unauthorized');
  const audit = await gw.admin('GET', `/admin/audit?actor=${admin.id}`);
  const actions = audit.json<{ entries: { action: string; actor_email: string }[] }>().entries;
  assert.deepEqual(
    actions
      .filter((e) => e.action.startsWith('operator.sign'))
      .map((e) => [e.action, e.actor_email]),
    [
      ['operator.sign_out', 'Ana.Admin@example.com'],
      ['operator.sign_in', 'Ana.Admin@example.com'],
    ],
  );
  await page.close();
});

test('a support operator: refused what the role may not do, with the exact text', async () => {
  const page = await signIn('sam@example.com');
  await page.getByText('sam@example.com · support').waitFor();
  const res = await page.evaluate(async () => {
    const me = (await (await fetch('/admin/me')).json()) as { csrf_token: string };
    const r = await fetch('/admin/apps', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf_token },
      body: JSON.stringify({ name: 'Not mine to make' }),
    });
    return { status: r.status, text: await r.text() };
  });
  assert.deepEqual(res, { status: 403, text: 'forbidden: role support cannot create apps' });
  await page.goto(`${site}/dashboard/audit`);
  await page.getByLabel('Person').selectOption({ label: 'Ana.Admin@example.com' });
  // The filtered page replaces the unfiltered one: wait until every row is Ana's.
  const who = await eventually(async () => {
    const cells = await page.locator('#audit-table td[data-field=actor]').allTextContents();
    return cells.length > 0 && cells.every((w) => w === 'Ana.Admin@example.com')
      ? cells
      : undefined;
  }, "only Ana's entries");
  assert.ok(who.length >= 2);
  await page
    .locator('#audit-table td[data-field=action]', { hasText: 'operator.sign_out' })
    .waitFor();
  await screenshot(page, 'signin-audit-by-person');
  await page.close();
});

test("a payment's page shows who did what to it", async () => {
  const app = await gw.createApp({ name: 'Signed-in shop' });
  const payment = await createPayment(gw, app, 'idr', 25_000);
  const sync = await gw.admin('POST', `/admin/payments/${payment.id}/sync`, undefined, admin.token);
  assert.equal(sync.status, 200, sync.text);
  const page = await browser.context.newPage();
  await page.goto(`${site}/dashboard/payments/${payment.id}`);
  const row = page.locator('#operator-actions tbody tr').first();
  await row.waitFor();
  assert.equal(
    await row.locator('td[data-field=actor]').textContent(),
    'Ana.Admin@example.com via token admin script',
  );
  assert.equal(await row.locator('td[data-field=action]').textContent(), 'payment.sync');
  await screenshot(page, 'signin-payment-operator-actions');
  await page.close();
});

test('a session ends when idle, at its absolute age, and when its operator is disabled', async () => {
  await browser.context.clearCookies();
  const page = await signIn('sam@example.com');
  await page.getByText('sam@example.com · support').waitFor();
  const value = (await sessionCookie()).value;
  await page.close();
  const me = (g: TestGateway) => fetch(`${g.url}/admin/me`, withCookie(value));
  // Other instances on the same database, their clocks ahead of this one.
  const ahead = async (ms: number, env: Record<string, string> = {}) => {
    const other = await startTestGateway(env, { workers: false }, gw);
    other.running.gw.now = () => Date.now() + ms;
    return other;
  };
  const idle = await ahead(31 * 60_000);
  try {
    assert.equal((await me(idle)).status, 401, 'unused for 31 minutes (SESSION_IDLE_MINUTES=30)');
  } finally {
    await idle.stop();
  }
  const patient = { SESSION_IDLE_MINUTES: '1440' };
  const before12h = await ahead(11 * 3_600_000, patient);
  const after12h = await ahead(13 * 3_600_000, patient);
  try {
    assert.equal((await me(before12h)).status, 200, 'within SESSION_MAX_HOURS=12');
    assert.equal((await me(after12h)).status, 401, 'past SESSION_MAX_HOURS=12');
  } finally {
    await before12h.stop();
    await after12h.stop();
  }
  assert.equal((await me(gw)).status, 200);
  const sam = (await gw.admin('GET', '/admin/operators'))
    .json<{ operators: { id: string; email: string }[] }>()
    .operators.find((o) => o.email === 'sam@example.com');
  await gw.admin('PATCH', `/admin/operators/${sam?.id ?? ''}`, { disabled: true });
  const refused = await me(gw);
  assert.equal(refused.status, 401);
  assert.equal(await refused.text(), 'unauthorized');
  await gw.admin('PATCH', `/admin/operators/${sam?.id ?? ''}`, { disabled: false });
});

test('an operator is bound to the first account that signed in; disabling releases it', async () => {
  // The provider's subject is the login name, so "Sam@example.com" is another account with
  // the same verified email (in another case) as "sam@example.com", who signs in first (the
  // test above disabled Sam, which released any earlier binding).
  await browser.context.clearCookies();
  const bound = await signIn('sam@example.com');
  await bound.getByText('sam@example.com · support').waitFor();
  await bound.close();
  await browser.context.clearCookies();
  const other = await signIn('Sam@example.com');
  assert.equal(
    (await other.textContent('body'))?.trim(),
    'sign-in failed: this email belongs to an operator bound to another account',
  );
  await other.close();
  assert.equal(
    (await browser.context.cookies(site)).some((c) => c.name === 'paygate_session'),
    false,
  );
  const sam = (await gw.admin('GET', '/admin/operators'))
    .json<{ operators: { id: string; email: string }[] }>()
    .operators.find((o) => o.email === 'sam@example.com');
  assert.ok(sam);
  for (const disabled of [true, false]) {
    const res = await gw.admin('PATCH', `/admin/operators/${sam.id}`, { disabled });
    assert.equal(res.status, 200, res.text);
  }
  const rebound = await signIn('Sam@example.com');
  await rebound.getByText('sam@example.com · support').waitFor();
  await rebound.close();
  // And now the first account is the other one.
  await browser.context.clearCookies();
  const first = await signIn('sam@example.com');
  assert.equal(
    (await first.textContent('body'))?.trim(),
    'sign-in failed: this email belongs to an operator bound to another account',
  );
  await first.close();
});

test('no account, or no verified email: sign-in fails with the reason', async () => {
  await browser.context.clearCookies();
  const unknown = await signIn('nobody@example.com');
  assert.equal(
    (await unknown.textContent('body'))?.trim(),
    'sign-in failed: no enabled operator account for this email',
  );
  await unknown.close();
  const unverified = await signIn('unverified+sam@example.com');
  assert.equal(
    (await unverified.textContent('body'))?.trim(),
    'sign-in failed: the identity provider gave no verified email',
  );
  await unverified.close();
  assert.deepEqual(idp.serverErrors, []);
});
