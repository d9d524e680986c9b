import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, paymentBody, rawSigned } from '../../helpers/core.js';
import { sign } from '../../helpers/http.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const ZERO_ID = '0'.repeat(32);
const GET_PATH = `/v1/payments/${ZERO_ID}`;
const HEADERS = ['X-PAY-Key', 'X-PAY-Timestamp', 'X-PAY-Signature'];

let gw: TestGateway;
let app: AppWithSecrets;
let other: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Auth shop' });
  other = await gw.createApp({ name: 'Other shop' });
});
after(async () => {
  await gw?.stop();
});

/** Runs fn with the gateway's clock fixed at nowMs (the clock that decides signature skew). */
async function atTime<T>(nowMs: number, fn: () => Promise<T>): Promise<T> {
  const real = gw.running.gw.now;
  gw.running.gw.now = () => nowMs;
  try {
    return await fn();
  } finally {
    gw.running.gw.now = real;
  }
}

/** A request that passed authentication reaches the route: 404 for an unknown payment. */
function assertAuthenticated(res: Awaited<ReturnType<typeof rawSigned>>): void {
  assertError(res, 404, 'payment not found');
}

describe('docs/api.md#request-signing: missing auth headers', () => {
  for (const name of HEADERS) {
    test(`GET without ${name}: 401 missing auth headers`, async () => {
      assertError(await rawSigned(gw.url, app, { omit: [name] }), 401, 'missing auth headers');
    });
    test(`POST without ${name}: 401 missing auth headers`, async () => {
      assertError(
        await rawSigned(gw.url, app, {
          method: 'POST',
          path: '/v1/payments',
          body: JSON.stringify(paymentBody()),
          omit: [name],
        }),
        401,
        'missing auth headers',
      );
    });
    test(`${name} present but empty: 401 missing auth headers`, async () => {
      assertError(
        await rawSigned(gw.url, app, { headers: { [name]: '' } }),
        401,
        'missing auth headers',
      );
    });
  }

  test('no headers at all', async () => {
    const res = await fetch(gw.url + GET_PATH);
    assert.equal(res.status, 401);
    assert.equal(await res.text(), 'missing auth headers');
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  });

  test('missing headers are reported before a bad timestamp', async () => {
    assertError(
      await rawSigned(gw.url, app, { timestamp: 'abc', omit: ['X-PAY-Signature'] }),
      401,
      'missing auth headers',
    );
  });
});

describe('docs/api.md#request-signing: bad timestamp', () => {
  for (const ts of [
    '12.5',
    'abc',
    '1e9',
    '0x10',
    '+1700000000',
    '17000000000000000',
    '1 2',
    'NaN',
  ]) {
    test(`X-PAY-Timestamp ${JSON.stringify(ts)}: 401 bad timestamp`, async () => {
      assertError(await rawSigned(gw.url, app, { timestamp: ts }), 401, 'bad timestamp');
    });
  }

  test('a timestamp in milliseconds is an integer but out of range', async () => {
    assertError(
      await rawSigned(gw.url, app, { timestamp: String(Date.now()) }),
      401,
      'timestamp out of range',
    );
  });

  test('bad timestamp is reported before a bad signature', async () => {
    assertError(
      await rawSigned(gw.url, app, { timestamp: '12.5', secret: 'wrong' }),
      401,
      'bad timestamp',
    );
  });
});

describe('docs/api.md#request-signing: timestamp out of range (300 s either way)', () => {
  // The gateway's clock is fixed for these, so the boundaries are exact.
  const NOW_MS = 1_800_000_000_700;
  const NOW_S = 1_800_000_000;

  const cases: [string, number, boolean][] = [
    ['301 s in the past', -301, false],
    ['301 s in the future', 301, false],
    ['299 s in the past', -299, true],
    ['299 s in the future', 299, true],
    ['exactly 300 s in the past', -300, true],
    ['exactly 300 s in the future', 300, true],
    ['now', 0, true],
    ['a day in the past', -86_400, false],
  ];
  for (const [what, offset, accepted] of cases) {
    test(`${what}: ${accepted ? 'accepted' : '401 timestamp out of range'}`, async () => {
      const res = await atTime(NOW_MS, () =>
        rawSigned(gw.url, app, { timestamp: String(NOW_S + offset) }),
      );
      if (accepted) assertAuthenticated(res);
      else assertError(res, 401, 'timestamp out of range');
    });
  }

  test('299 s in the past and future against the real clock', async () => {
    const now = Math.floor(Date.now() / 1000);
    assertAuthenticated(await rawSigned(gw.url, app, { timestamp: String(now - 299) }));
    assertAuthenticated(await rawSigned(gw.url, app, { timestamp: String(now + 299) }));
  });

  test('301 s in the past against the real clock', async () => {
    const now = Math.floor(Date.now() / 1000);
    assertError(
      await rawSigned(gw.url, app, { timestamp: String(now - 301) }),
      401,
      'timestamp out of range',
    );
  });

  test('a negative timestamp is out of range', async () => {
    assertError(await rawSigned(gw.url, app, { timestamp: '-5' }), 401, 'timestamp out of range');
  });

  test('range is checked before the signature (an old replay gets out of range)', async () => {
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    assertError(
      await rawSigned(gw.url, app, { timestamp: old, secret: 'wrong' }),
      401,
      'timestamp out of range',
    );
  });
});

describe('docs/api.md#request-signing: bad signature', () => {
  test('a correctly signed GET is accepted', async () => {
    assertAuthenticated(await rawSigned(gw.url, app));
    assertAuthenticated(await gw.v1(app, 'GET', GET_PATH));
  });

  test('wrong secret', async () => {
    assertError(await rawSigned(gw.url, app, { secret: 'sk_wrong' }), 401, 'bad signature');
  });

  test("another app's secret with this app's key", async () => {
    assertError(
      await rawSigned(gw.url, app, { secret: other.signing_secret }),
      401,
      'bad signature',
    );
  });

  test("another app's key with this app's secret", async () => {
    assertError(await rawSigned(gw.url, app, { key: other.api_key }), 401, 'bad signature');
  });

  test('the webhook secret is not the request secret', async () => {
    assertError(await rawSigned(gw.url, app, { secret: app.webhook_secret }), 401, 'bad signature');
  });

  test('tampered body', async () => {
    const body = JSON.stringify(paymentBody({ amount_minor: 15000 }));
    assertError(
      await rawSigned(gw.url, app, {
        method: 'POST',
        path: '/v1/payments',
        body: body.replace('15000', '15001'),
        signedBody: body,
      }),
      401,
      'bad signature',
    );
  });

  test('a body sent but signed as empty', async () => {
    // Signing covers the raw bytes actually sent, whatever the method.
    assertError(
      await rawSigned(gw.url, app, {
        method: 'POST',
        path: '/v1/payments',
        body: '{}',
        signedBody: '',
      }),
      401,
      'bad signature',
    );
  });

  test('wrong path', async () => {
    assertError(
      await rawSigned(gw.url, app, { signedPath: `/v1/payments/${'1'.repeat(32)}` }),
      401,
      'bad signature',
    );
    assertError(await rawSigned(gw.url, app, { signedPath: '/v1/payments' }), 401, 'bad signature');
  });

  test('wrong method', async () => {
    assertError(await rawSigned(gw.url, app, { signedMethod: 'POST' }), 401, 'bad signature');
  });

  test('the method in the canonical string is uppercase', async () => {
    assertError(await rawSigned(gw.url, app, { signedMethod: 'get' }), 401, 'bad signature');
  });

  test('wrong timestamp in the canonical string', async () => {
    const now = Math.floor(Date.now() / 1000);
    const res = await fetch(gw.url + GET_PATH, {
      headers: {
        'X-PAY-Key': app.api_key,
        'X-PAY-Timestamp': String(now),
        'X-PAY-Signature': sign(app.signing_secret, String(now - 1), 'GET', GET_PATH, ''),
      },
    });
    assert.equal(res.status, 401);
    assert.equal(await res.text(), 'bad signature');
  });

  test('signature not hex, or truncated', async () => {
    const good = sign(app.signing_secret, '1', 'GET', GET_PATH, '');
    for (const signature of ['zz', 'deadbeef', 'x'.repeat(64), good.slice(0, 63), good + '0']) {
      assertError(
        await rawSigned(gw.url, app, { headers: { 'X-PAY-Signature': signature } }),
        401,
        'bad signature',
      );
    }
  });

  test('unknown X-PAY-Key: 401 bad signature (no hint which keys exist)', async () => {
    assertError(
      await rawSigned(gw.url, app, { key: 'pk_00000000000000000000000000000000' }),
      401,
      'bad signature',
    );
    assertError(await rawSigned(gw.url, app, { key: 'nonsense' }), 401, 'bad signature');
  });

  test('signed over the exact raw bytes, not re-serialized JSON', async () => {
    // Odd whitespace and non-ASCII text: any re-encoding would break the signature.
    const body = '{ "external_user_id" : "ü-1",\n  "amount_minor": 0 }';
    assertError(
      await rawSigned(gw.url, app, { method: 'POST', path: '/v1/payments', body }),
      400,
      'missing required fields: currency, method, return_url',
    );
  });
});

describe('docs/api.md#request-signing: the signed path excludes the query string', () => {
  test('signed without the query string: accepted', async () => {
    assertAuthenticated(await rawSigned(gw.url, app, { path: `${GET_PATH}?expand=all&x=1` }));
  });

  test('signed with the query string included: 401 bad signature', async () => {
    const path = `${GET_PATH}?expand=all`;
    assertError(await rawSigned(gw.url, app, { path, signedPath: path }), 401, 'bad signature');
  });

  test('POST with a query string signed on the bare path reaches the handler', async () => {
    assertError(
      await rawSigned(gw.url, app, { method: 'POST', path: '/v1/payments?src=pos', body: '{}' }),
      400,
      'missing required fields: external_user_id, amount_minor, currency, method, return_url',
    );
  });
});

describe('authentication comes first', () => {
  test('an unauthenticated POST with an invalid body gets 401, not 400', async () => {
    assertError(
      await rawSigned(gw.url, app, {
        method: 'POST',
        path: '/v1/payments',
        body: '{not json',
        secret: 'wrong',
      }),
      401,
      'bad signature',
    );
  });

  test('the admin bearer token on /v1: 401 missing auth headers', async () => {
    for (const [method, path] of [
      ['GET', GET_PATH],
      ['POST', '/v1/payments'],
    ] as const) {
      const res = await fetch(gw.url + path, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: method === 'POST' ? JSON.stringify(paymentBody()) : undefined,
      });
      assert.equal(res.status, 401);
      assert.equal(await res.text(), 'missing auth headers');
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    }
  });

  test('the admin token used as an app key or secret: 401 bad signature', async () => {
    assertError(await rawSigned(gw.url, app, { key: ADMIN_TOKEN }), 401, 'bad signature');
    assertError(await rawSigned(gw.url, app, { secret: ADMIN_TOKEN }), 401, 'bad signature');
  });
});
