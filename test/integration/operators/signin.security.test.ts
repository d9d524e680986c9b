/**
 * The sign-in routes without a browser (the OpenID Connect flow itself runs in Chromium in
 * test/browser/dashboard.signin.test.ts): configuration, a callback that was not started in
 * this browser, throttling of failed sign-ins per source, sign-out without a session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { bindOperatorIdentity } from '../../helpers/state.js';
import { assertError } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createOperator } from '../../helpers/operators.js';

async function get(gw: TestGateway, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(gw.url + path, { headers, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
}

describe('sign-in configuration', () => {
  test('OIDC_* all three or none; https issuer unless loopback', () => {
    const base = { ADMIN_TOKEN: 'x'.repeat(20), MASTER_KEY: 'ab'.repeat(32) };
    assert.throws(
      () => loadConfig({ ...base, OIDC_ISSUER: 'https://id.example.com' }),
      /OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three or none/,
    );
    const three = { OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' };
    assert.throws(
      () => loadConfig({ ...base, ...three, OIDC_ISSUER: 'http://id.example.com' }),
      /OIDC_ISSUER must be an https URL \(http only on loopback\)/,
    );
    const ok = loadConfig({ ...base, ...three, OIDC_ISSUER: 'https://id.example.com/realms/ops' });
    assert.deepEqual(ok.operatorAuth.oidc, {
      issuer: 'https://id.example.com/realms/ops',
      clientId: 'c',
      clientSecret: 's',
    });
    assert.equal(loadConfig(base).operatorAuth.oidc, undefined);
  });
});

describe('without single sign-on', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({}, { workers: false });
  });
  after(() => gw?.stop());

  test('the dashboard is told; the sign-in routes are not there', async () => {
    assert.deepEqual((await get(gw, '/auth/methods')).json(), { oidc: false });
    assertError(await get(gw, '/auth/oidc/start'), 404, 'not found');
    assertError(await get(gw, '/auth/oidc/callback?state=x&code=y'), 404, 'not found');
  });

  test('sign-out without a session: 204, the cookie cleared', async () => {
    const res = await fetch(`${gw.url}/auth/sign-out`, {
      method: 'POST',
      headers: { cookie: 'paygate_session=not-a-session' },
    });
    assert.equal(res.status, 204);
    assert.match(
      res.headers.get('set-cookie') ?? '',
      /^paygate_session=;.*Expires=Thu, 01 Jan 1970/,
    );
  });
});

describe('failed sign-ins, throttled per source', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(
      {
        // Never contacted: these callbacks fail before the provider is asked anything.
        OIDC_ISSUER: 'http://127.0.0.1:9',
        OIDC_CLIENT_ID: 'paygate',
        OIDC_CLIENT_SECRET: 'secret',
        ADMIN_AUTH_FAILURES_BURST: '3',
        ADMIN_AUTH_FAILURES_PER_MINUTE: '6',
      },
      { workers: false },
    );
  });
  after(() => gw?.stop());

  test('a callback not started in this browser: 401, then 429 with Retry-After for everything', async () => {
    assert.deepEqual((await get(gw, '/auth/methods')).json(), { oidc: true });
    const why = 'sign-in failed: the sign-in was not started in this browser or has expired';
    assertError(await get(gw, '/auth/oidc/callback?state=abc&code=x'), 401, why);
    // The state of another browser's sign-in, even with a matching cookie of its own.
    assertError(
      await get(gw, '/auth/oidc/callback?state=abc&code=x', { cookie: 'paygate_oidc_state=abc' }),
      401,
      why,
    );
    assertError(await get(gw, '/auth/oidc/callback?code=x'), 401, why);
    const limited = await get(gw, '/auth/oidc/callback?state=abc&code=x');
    assertError(limited, 429, 'too many failed authentications');
    assert.equal(limited.headers.get('retry-after'), '10');
    // The admin API shares the allowance: the right token waits too.
    assertError(await gw.admin('GET', '/admin/apps'), 429, 'too many failed authentications');
    assertError(await get(gw, '/auth/oidc/start'), 429, 'too many failed authentications');
  });
});

describe('sign-in starts, bounded per source', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(
      {
        // Nothing listens there: discovery fails, the start answers 503.
        OIDC_ISSUER: 'http://127.0.0.1:9',
        OIDC_CLIENT_ID: 'paygate',
        OIDC_CLIENT_SECRET: 'secret',
        ADMIN_AUTH_FAILURES_BURST: '2',
        ADMIN_AUTH_FAILURES_PER_MINUTE: '6',
      },
      { workers: false },
    );
  });
  after(() => gw?.stop());

  test('each start costs one allowance until its sign-in succeeds; an unreachable provider is 503', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await get(gw, '/auth/oidc/start');
      assertError(res, 503, 'service unavailable');
      assert.equal(res.headers.get('retry-after'), '5');
    }
    assertError(await get(gw, '/auth/oidc/start'), 429, 'too many failed authentications');
  });
});

describe("binding an operator to the identity provider's account", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({}, { workers: false });
  });
  after(() => gw?.stop());

  test('two first sign-ins from different accounts race: one account is bound', async () => {
    const op = await createOperator(gw, 'viewer');
    const pool = gw.running.gw.pool;
    const issuer = 'https://id.example.com';
    const subjects = Array.from({ length: 8 }, (_, i) => `account-${i}`);
    const won = await Promise.all(
      subjects.map((subject) => bindOperatorIdentity(pool, op.id, { issuer, subject })),
    );
    assert.equal(won.filter((w) => w === 'bound').length, 1, JSON.stringify(won));
    const winner = subjects[won.indexOf('bound')] as string;
    // The bound account signs in again; the others stay refused.
    assert.equal(await bindOperatorIdentity(pool, op.id, { issuer, subject: winner }), 'bound');
    const loser = subjects.find((s) => s !== winner) as string;
    assert.equal(
      await bindOperatorIdentity(pool, op.id, { issuer, subject: loser }),
      'bound_elsewhere',
    );
    // One account is one operator: the bound account cannot bind to a second one.
    const other = await createOperator(gw, 'viewer');
    assert.equal(
      await bindOperatorIdentity(pool, other.id, { issuer, subject: winner }),
      'account_taken',
    );
    // A new identity provider (OIDC_ISSUER changed) binds anew.
    const next = { issuer: 'https://sso.example.org', subject: loser };
    assert.equal(await bindOperatorIdentity(pool, op.id, next), 'bound');
    // A disabled operator binds nothing.
    await gw.admin('PATCH', `/admin/operators/${op.id}`, { disabled: true });
    assert.equal(await bindOperatorIdentity(pool, op.id, next), 'bound_elsewhere');
  });
});
