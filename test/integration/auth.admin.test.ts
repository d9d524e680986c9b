import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../src/services/apps.js';
import { assertError, assertStatus, nowSeconds, TEXT_PLAIN } from '../helpers/core.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sign } from '../helpers/http.js';

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Admin auth shop' });
});
after(async () => {
  await gw?.stop();
});

const ROUTES = (): [string, string, unknown][] => [
  ['GET', '/admin/apps', undefined],
  ['POST', '/admin/apps', { name: 'Intruder' }],
  ['PATCH', `/admin/apps/${app.app_id}`, { name: 'Hijacked' }],
  ['POST', `/admin/apps/${app.app_id}/regenerate-keys`, undefined],
];

async function adminWith(
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

describe('docs/api.md#admin-token: the admin bearer token', () => {
  test('the right token is accepted', async () => {
    assertStatus(await gw.admin('GET', '/admin/apps'), 200);
  });

  const wrong: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an empty Authorization header', { authorization: '' }],
    ['a wrong token', { authorization: 'Bearer wrong-token-0123456789abcdef' }],
    ['the token with one character more', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
    ['the token with one character less', { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }],
    ['Bearer without a token', { authorization: 'Bearer ' }],
    ['the token without the Bearer scheme', { authorization: ADMIN_TOKEN }],
    ['another scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
    ['the token in another header', { 'x-admin-token': ADMIN_TOKEN }],
  ];
  for (const [what, headers] of wrong) {
    test(`${what}: 401 unauthorized on every admin route`, async () => {
      for (const [method, path, body] of ROUTES()) {
        assertError(await adminWith(method, path, body, headers), 401, 'unauthorized');
      }
    });
  }

  test("an app's HMAC headers on /admin: 401 unauthorized", async () => {
    for (const [method, path, body] of ROUTES()) {
      const raw = body === undefined ? '' : JSON.stringify(body);
      const ts = String(nowSeconds());
      const res = await adminWith(method, path, body, {
        'X-PAY-Key': app.api_key,
        'X-PAY-Timestamp': ts,
        'X-PAY-Signature': sign(app.signing_secret, ts, method, path, raw),
      });
      assertError(res, 401, 'unauthorized');
    }
  });

  test("an app's signing secret as a bearer token: 401 unauthorized", async () => {
    assertError(
      await gw.admin('GET', '/admin/apps', undefined, app.signing_secret),
      401,
      'unauthorized',
    );
    assertError(await gw.admin('GET', '/admin/apps', undefined, app.api_key), 401, 'unauthorized');
  });

  test('refused admin requests change nothing', async () => {
    const before = (await gw.admin('GET', '/admin/apps')).text;
    for (const [method, path, body] of ROUTES()) {
      await adminWith(method, path, body, { authorization: 'Bearer nope' });
    }
    assert.equal((await gw.admin('GET', '/admin/apps')).text, before);
    // The app's keys still work: regenerate-keys did not run.
    const ts = String(nowSeconds());
    const path = `/v1/payments/${'0'.repeat(32)}`;
    const res = await fetch(gw.url + path, {
      headers: {
        'X-PAY-Key': app.api_key,
        'X-PAY-Timestamp': ts,
        'X-PAY-Signature': sign(app.signing_secret, ts, 'GET', path, ''),
      },
    });
    assert.equal(res.status, 404);
    assert.equal(await res.text(), 'payment not found');
  });

  test('401 bodies are plain text', async () => {
    const res = await fetch(gw.url + '/admin/apps');
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('content-type'), TEXT_PLAIN);
    assert.equal(await res.text(), 'unauthorized');
  });
});
