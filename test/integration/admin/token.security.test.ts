/**
 * docs/api.md#admin-token, the admin token's rules in one file: every admin path refuses a
 * missing or wrong bearer token and an app's HMAC credentials (401 unauthorized, plain
 * text), and every /v1 path refuses the admin token (401 missing auth headers). Refused
 * requests change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, count, nowSeconds, TEXT_PLAIN } from '../../helpers/core.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { sign } from '../../helpers/http.js';

let gw: TestGateway;
let app: AppWithSecrets;
const PAYMENT = 'a'.repeat(32);

before(async () => {
  // Hundreds of refused tokens from one address: the per-source throttle is tested on its
  // own (admin.throttle.test.ts); here every refusal must be the 401 itself.
  gw = await startTestGateway({ ADMIN_AUTH_FAILURES_BURST: '100000' });
  app = await gw.createApp({ name: 'Security shop' });
});
after(async () => {
  await gw?.stop();
});

/** Every admin route, with a body where it takes one. */
const ADMIN_ROUTES = (): [string, string, unknown][] => [
  ['GET', '/admin/apps', undefined],
  ['POST', '/admin/apps', { name: 'Intruder' }],
  ['PATCH', `/admin/apps/${app.app_id}`, { name: 'Hijacked' }],
  ['POST', `/admin/apps/${app.app_id}/regenerate-keys`, undefined],
  ['GET', '/admin/summary', undefined],
  ['GET', '/admin/summary?days=7&mode=live', undefined],
  ['GET', '/admin/timeseries', undefined],
  ['GET', '/admin/payments', undefined],
  ['GET', '/admin/payments?limit=5&mode=test', undefined],
  ['GET', `/admin/payments/${PAYMENT}`, undefined],
  ['GET', '/admin/refunds', undefined],
  ['GET', '/admin/balances', undefined],
  ['GET', '/admin/payouts', undefined],
  ['GET', '/admin/inbound_events', undefined],
  ['GET', `/admin/inbound_events?payment_id=${PAYMENT}`, undefined],
  ['GET', '/admin/deliveries', undefined],
  ['GET', '/admin/deliveries?status=dead', undefined],
  ['POST', `/admin/payments/${PAYMENT}/cancel`, undefined],
  ['POST', `/admin/payments/${PAYMENT}/refund`, { amount_minor: 100 }],
  ['POST', `/admin/payments/${PAYMENT}/retry-webhook`, undefined],
  // Not under /admin, but the admin token guards it too (docs/api.md#health-and-metrics).
  ['GET', '/metrics', undefined],
];

async function request(
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
) {
  const res = await fetch(gw.url + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
}

describe('admin paths refuse everything but the admin token', () => {
  test('the right token is accepted', async () => {
    assertStatus(await gw.admin('GET', '/admin/apps'), 200);
  });

  test('the admin token is accepted on every read path', async () => {
    for (const [method, path] of ADMIN_ROUTES()) {
      if (method !== 'GET') continue;
      const res = await gw.admin(method, path);
      assert.notEqual(res.status, 401, `${method} ${path}`);
    }
  });

  const refusals: [string, () => Record<string, string>][] = [
    ['a missing token', () => ({})],
    ['an empty Authorization header', () => ({ authorization: '' })],
    ['a wrong token', () => ({ authorization: 'Bearer not-the-admin-token-0123456789' })],
    ['another wrong token', () => ({ authorization: 'Bearer wrong-token-0123456789abcdef' })],
    ['the token with one character more', () => ({ authorization: `Bearer ${ADMIN_TOKEN}x` })],
    [
      'the token with one character less',
      () => ({ authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }),
    ],
    ['Bearer without a token', () => ({ authorization: 'Bearer ' })],
    ['another scheme', () => ({ authorization: `Basic ${ADMIN_TOKEN}` })],
    ['the token in another header', () => ({ 'x-admin-token': ADMIN_TOKEN })],
    [
      'the token with a different case',
      () => ({ authorization: `Bearer ${ADMIN_TOKEN.toUpperCase()}` }),
    ],
    ['the token without Bearer', () => ({ authorization: ADMIN_TOKEN })],
    [
      "an app's signing secret as the token",
      () => ({ authorization: `Bearer ${app.signing_secret}` }),
    ],
    ["an app's api key as the token", () => ({ authorization: `Bearer ${app.api_key}` })],
  ];
  for (const [what, headers] of refusals) {
    test(`${what}: 401 unauthorized on every admin path`, async () => {
      for (const [method, path, body] of ADMIN_ROUTES()) {
        const res = await request(method, path, body, headers());
        assertError(res, 401, 'unauthorized');
      }
    });
  }

  test("an app's valid HMAC credentials: 401 unauthorized on every admin path", async () => {
    for (const [method, path, body] of ADMIN_ROUTES()) {
      const raw = body === undefined ? '' : JSON.stringify(body);
      const ts = String(nowSeconds());
      const res = await request(method, path, body, {
        'X-PAY-Key': app.api_key,
        'X-PAY-Timestamp': ts,
        'X-PAY-Signature': sign(app.signing_secret, ts, method, path.split('?')[0] as string, raw),
      });
      assertError(res, 401, 'unauthorized');
    }
  });

  test("an app's signing secret or api key as the bearer token (gw.admin): 401 unauthorized", async () => {
    assertError(
      await gw.admin('GET', '/admin/apps', undefined, app.signing_secret),
      401,
      'unauthorized',
    );
    assertError(await gw.admin('GET', '/admin/apps', undefined, app.api_key), 401, 'unauthorized');
  });

  test('refused admin requests change nothing: the apps list reads the same after', async () => {
    const before = (await gw.admin('GET', '/admin/apps')).text;
    for (const [method, path, body] of ADMIN_ROUTES()) {
      await request(method, path, body, { authorization: 'Bearer nope' });
    }
    assert.equal((await gw.admin('GET', '/admin/apps')).text, before);
  });

  test('401 bodies are plain text', async () => {
    const res = await fetch(gw.url + '/admin/apps');
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('content-type'), TEXT_PLAIN);
    assert.equal(await res.text(), 'unauthorized');
  });

  test('refused requests changed nothing', async () => {
    assert.equal(await count(gw.databaseUrl, 'apps'), 1);
    const apps = (await gw.admin('GET', '/admin/apps')).json<{ apps: { name: string }[] }>().apps;
    assert.deepEqual(
      apps.map((a) => a.name),
      ['Security shop'],
    );
    // The app's keys were not regenerated.
    const res = await gw.v1(app, 'GET', `/v1/payments/${PAYMENT}`);
    assertError(res, 404, 'payment not found');
  });
});

describe('/v1 paths refuse the admin token', () => {
  const V1: [string, string, unknown][] = [
    [
      'POST',
      '/v1/payments',
      {
        external_user_id: 'u',
        amount_minor: 100,
        currency: 'IDR',
        method: 'qris',
        return_url: 'https://x.example/',
      },
    ],
    ['POST', '/v1/refunds', { payment_id: PAYMENT }],
    ['GET', `/v1/payments/${PAYMENT}`, undefined],
  ];
  test('Authorization: Bearer <admin token> alone: 401 missing auth headers', async () => {
    for (const [method, path, body] of V1) {
      const res = await request(method, path, body, { authorization: `Bearer ${ADMIN_TOKEN}` });
      assertError(res, 401, 'missing auth headers');
    }
  });

  test('the admin token in the X-PAY headers: refused as a bad signature', async () => {
    for (const [method, path, body] of V1) {
      const ts = String(nowSeconds());
      const res = await request(method, path, body, {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'X-PAY-Key': ADMIN_TOKEN,
        'X-PAY-Timestamp': ts,
        'X-PAY-Signature': sign(
          ADMIN_TOKEN,
          ts,
          method,
          path,
          body === undefined ? '' : JSON.stringify(body),
        ),
      });
      assertError(res, 401, 'bad signature');
    }
    assert.equal(await count(gw.databaseUrl, 'payments'), 0);
  });
});
