import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { rawExchange } from '../../helpers/rawHttp.js';
import { rng } from '../../helpers/util.js';

// Hostile input on every route: malformed wire bytes, bad percent-encoding, overlong ids and
// values, NUL bytes, extreme numbers, odd JSON. Whatever it is, the answer is never 5xx and
// every error body is plain text. Inputs come from a seeded generator, so a failure repeats.

const TEXT = 'text/plain; charset=utf-8';

/** Mulberry32: small, seeded, good enough to pick inputs reproducibly. */
const HOSTILE_SEGMENTS = [
  '%zz',
  '%E0%A4%A',
  '%',
  '%00',
  '%2e%2e',
  '..',
  '%ff%fe',
  'a'.repeat(150),
  '0'.repeat(32),
  'G'.repeat(32),
  '%F0%9F%92%A9',
  '%C0%AF',
  '-1',
  '9'.repeat(40),
  '%0d%0aX-Injected:%201',
];

const HOSTILE_VALUES: unknown[] = [
  -9007199254740991,
  9007199254740991,
  1e308,
  -1e308,
  0,
  -1,
  1.5,
  '',
  '\u0000',
  'x\u0000y',
  '\ud800',
  'a'.repeat(5000),
  null,
  true,
  [],
  {},
  { $ne: null },
  [1, [2, [3, [4]]]],
  '9'.repeat(400),
];

const ROUTES: [string, string][] = [
  ['GET', '/v1/payments/{id}'],
  ['POST', '/v1/payments'],
  ['POST', '/v1/refunds'],
  ['GET', '/admin/payments/{id}'],
  ['POST', '/admin/payments/{id}/cancel'],
  ['POST', '/admin/payments/{id}/refund'],
  ['POST', '/admin/payments/{id}/retry-webhook'],
  ['PATCH', '/admin/apps/{id}'],
  ['POST', '/admin/apps/{id}/regenerate-keys'],
  ['POST', '/admin/apps'],
  ['GET', '/admin/inbound_events?payment_id={id}'],
  ['GET', '/admin/summary?days={id}&mode={id}'],
  ['GET', '/admin/payments?limit={id}&before={id}'],
  ['GET', '/admin/payouts?since={id}&until={id}'],
  ['POST', '/webhooks/idr_psp'],
  ['POST', '/webhooks/card_psp'],
  ['POST', '/webhooks/wallet_psp'],
  ['POST', '/sim/clock'],
  ['POST', '/sim/idr_psp/payments/{id}/pay'],
  ['POST', '/sim/card_psp/payments/{id}/refund'],
  ['POST', '/sim/wallet_psp/payments/{id}/cancel'],
  ['GET', '/sim/idr_psp/payments/{id}'],
];

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  // A wide allowance: the fuzzer sends many bad signatures from one address.
  gw = await startTestGateway({ WEBHOOK_UNVERIFIED_BURST: '100000' });
  app = await gw.createApp();
});
after(() => gw?.stop());

function assertNo5xx(
  what: string,
  res: { status: number; headers: Headers | Record<string, string>; text: string },
) {
  assert.ok(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
  if (res.status >= 400) {
    const type =
      res.headers instanceof Headers
        ? res.headers.get('content-type')
        : res.headers['content-type'];
    assert.equal(type, TEXT, `${what}: ${res.status} is plain text`);
  }
}

function body(pick: () => number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = [
    'external_user_id',
    'email',
    'amount_minor',
    'currency',
    'method',
    'return_url',
    'metadata',
    'invoice_prefix',
    'payment_id',
    'reason',
    'name',
    'webhook_url',
    'allowed_providers',
    'allowed_methods',
    'advance_ms',
    'reset',
    'note',
  ];
  for (const f of fields) {
    if (pick() < 0.6) out[f] = HOSTILE_VALUES[Math.floor(pick() * HOSTILE_VALUES.length)];
  }
  return out;
}

describe('fuzz: hostile paths, queries and bodies on every route', () => {
  test('no 5xx, every error plain text', async () => {
    const pick = rng(20261123);
    for (let i = 0; i < 400; i++) {
      const [method, template] = ROUTES[i % ROUTES.length] as [string, string];
      const seg = HOSTILE_SEGMENTS[Math.floor(pick() * HOSTILE_SEGMENTS.length)] as string;
      const path = template.replaceAll('{id}', seg);
      const payload = method === 'GET' ? undefined : JSON.stringify(body(pick));
      const what = `${method} ${path} ${payload?.slice(0, 120) ?? ''}`;
      if (path.startsWith('/v1/')) {
        assertNo5xx(what, await gw.v1(app, method, path, payload));
      } else {
        const res = await gw.admin(method, path, payload, pick() < 0.8 ? ADMIN_TOKEN : '');
        assertNo5xx(what, res);
      }
    }
  });

  test('/sim/clock with extreme advance_ms values: 400 plain text', async () => {
    for (const v of HOSTILE_VALUES) {
      const res = await gw.admin('POST', '/sim/clock', { advance_ms: v }, '');
      assertNo5xx(`advance_ms ${JSON.stringify(v)}`, res);
      assert.equal(res.status, 400, `advance_ms ${JSON.stringify(v)}`);
    }
  });
});

describe('fuzz: malformed wire bytes', () => {
  const requests = [
    'GARBAGE\r\n\r\n',
    'GET\r\n\r\n',
    'GET / HTTP/9.9\r\n\r\n',
    'GET /healthz HTTP/1.1\r\nHost: gw\r\nBad Header\r\n\r\n',
    'GET /healthz HTTP/1.1\r\nHost: gw\r\nX: \u0000\r\n\r\n',
    'POST /webhooks/idr_psp HTTP/1.1\r\nHost: gw\r\nContent-Length: -1\r\n\r\n',
    'POST /webhooks/idr_psp HTTP/1.1\r\nHost: gw\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef',
    'POST /webhooks/idr_psp HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    `GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: gw\r\n\r\n`,
    `GET /healthz HTTP/1.1\r\nHost: gw\r\n${'X-A: b\r\n'.repeat(3000)}Connection: close\r\n\r\n`,
    'GET /v1/payments/%zz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n',
    'GET /admin/payments/%E0%A4%A HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n',
    'GET /sim/%zz/clock HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n',
  ];
  for (const req of requests) {
    test(`${JSON.stringify(req.slice(0, 60))}: answered below 500, errors in plain text`, async () => {
      const { response, raw } = await rawExchange(gw.url, req);
      assert.ok(response, `a complete response, got ${JSON.stringify(raw.slice(0, 200))}`);
      assertNo5xx(req.slice(0, 60), { ...response, text: response.body });
    });
  }
});
