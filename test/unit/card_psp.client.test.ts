import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { cardPsp } from '../../src/providers/card_psp/index.js';
import {
  ProviderError,
  type ProviderContext,
  type RegisterPaymentInput,
} from '../../src/providers/types.js';

// How the adapter sorts provider answers (medusa style): 4xx rejected with the provider's
// text, timeouts, broken connections, 429 and 5xx indeterminate. A stub HTTP server plays
// the provider; the request the adapter sends is checked too.

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
let respond: (req: Seen, res: http.ServerResponse) => void = (_req, res) => res.end();
const seen: Seen[] = [];
let server: http.Server;
let base = '';

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(s);
      respond(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function ctx(timeoutMs = 2000, baseUrl = base): ProviderContext {
  return {
    mode: 'sandbox',
    endpoint: {
      baseUrl,
      credentials: { accessToken: 'polar_oat_test', webhookSecret: 'whsec_x' },
      webhookSecret: 'whsec_x',
    },
    timeoutMs,
    now: () => Date.now(),
  };
}

const input: RegisterPaymentInput = {
  paymentId: 'd'.repeat(32),
  amountMinor: 1999,
  currency: 'USD',
  method: 'card_psp',
  email: 'buyer@example.com',
  externalUserId: 'user-7',
  returnUrl: 'https://shop.example.com/return',
  metadata: { card_psp_product_id: 'prod_pro', order: 'A-1' },
  directQr: false,
};

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ProviderError, String(err));
    return err;
  }
  assert.fail('expected a ProviderError');
}

test('register sends a Polar checkout create and returns the checkout', async () => {
  seen.length = 0;
  respond = (_req, res) =>
    json(res, 201, {
      id: 'co_1',
      url: 'https://buy.example/co_1',
      status: 'open',
      expires_at: '2030-01-01T00:00:00Z',
    });
  const reg = await cardPsp.register(ctx(), input);
  assert.deepEqual(reg, {
    providerRef: 'co_1',
    checkoutUrl: 'https://buy.example/co_1',
    expiresAt: new Date('2030-01-01T00:00:00Z'),
  });
  const req = seen[0];
  assert.ok(req);
  assert.equal(req.method, 'POST');
  assert.equal(req.url, '/v1/checkouts/');
  assert.equal(req.headers.authorization, 'Bearer polar_oat_test');
  assert.equal(req.headers['idempotency-key'], input.paymentId);
  assert.deepEqual(JSON.parse(req.body), {
    products: ['prod_pro'],
    // A discount code or a trial would let the provider take less than the payment.
    allow_discount_codes: false,
    allow_trial: false,
    prices: { prod_pro: [{ amount_type: 'fixed', price_amount: 1999, price_currency: 'usd' }] },
    customer_email: 'buyer@example.com',
    external_customer_id: 'user-7',
    success_url: 'https://shop.example.com/return',
    metadata: { payment_id: input.paymentId },
  });
});

test('a 4xx is rejected with the provider text verbatim', async () => {
  respond = (_req, res) =>
    json(res, 422, {
      error: 'RequestValidationError',
      detail: [
        { loc: ['body', 'products'], msg: 'List should have at least 1 item', type: 'too_short' },
      ],
    });
  let err = await rejection(cardPsp.register(ctx(), input));
  assert.equal(err.kind, 'rejected');
  assert.equal(err.providerText, 'List should have at least 1 item');

  respond = (_req, res) =>
    json(res, 401, { error: 'invalid_token', error_description: 'Token expired.' });
  err = await rejection(cardPsp.register(ctx(), input));
  assert.deepEqual([err.kind, err.providerText], ['rejected', 'Token expired.']);

  respond = (_req, res) => json(res, 403, { error: 'NotPermitted', detail: 'Not permitted.' });
  err = await rejection(cardPsp.register(ctx(), input));
  assert.deepEqual([err.kind, err.providerText], ['rejected', 'Not permitted.']);

  respond = (_req, res) => res.writeHead(400).end('plain words');
  err = await rejection(cardPsp.register(ctx(), input));
  assert.deepEqual([err.kind, err.providerText], ['rejected', 'plain words']);
});

test('5xx, 429, an unreadable 2xx, a timeout and a refused connection are indeterminate', async () => {
  for (const status of [500, 502, 503, 429]) {
    respond = (_req, res) => json(res, status, { detail: 'busy' });
    const err = await rejection(cardPsp.register(ctx(), input));
    assert.deepEqual(
      [err.kind, err.providerText],
      ['indeterminate', `card_psp answered ${status}`],
    );
  }
  respond = (_req, res) => res.writeHead(201).end('<html>');
  assert.equal((await rejection(cardPsp.register(ctx(), input))).kind, 'indeterminate');
  respond = (_req, res) => json(res, 201, { status: 'open' });
  assert.equal((await rejection(cardPsp.register(ctx(), input))).kind, 'indeterminate');

  respond = () => undefined; // never answers
  const err = await rejection(cardPsp.register(ctx(150), input));
  assert.deepEqual(
    [err.kind, err.providerText],
    ['indeterminate', 'card_psp timed out after 150 ms'],
  );

  const refused = await rejection(cardPsp.register(ctx(2000, 'http://127.0.0.1:9'), input));
  assert.deepEqual([refused.kind, refused.providerText], ['indeterminate', 'card_psp unreachable']);
});

test('fetchStatus reads the checkout and, once paid, its subscription', async () => {
  seen.length = 0;
  respond = (req, res) => {
    if (req.url === '/v1/checkouts/co_9') {
      json(res, 200, {
        id: 'co_9',
        status: 'succeeded',
        subscription_id: 'sub_9',
        amount: 1999,
        net_amount: 1999,
        currency: 'usd',
      });
    } else if (req.url === '/v1/subscriptions/sub_9') {
      json(res, 200, { id: 'sub_9', status: 'active', current_period_end: '2030-02-01T00:00:00Z' });
    } else json(res, 404, { error: 'ResourceNotFound', detail: 'Not found' });
  };
  const action = await cardPsp.fetchStatus(ctx(), {
    paymentId: input.paymentId,
    providerRef: 'co_9',
  });
  assert.deepEqual(action, {
    kind: 'payment',
    outcome: 'succeeded',
    paid: { amountMinor: 1999, currency: 'USD' },
    enrichment: {
      card_psp_subscription_id: 'sub_9',
      current_period_end: '2030-02-01T00:00:00.000Z',
      card_psp_event_type: 'checkout.updated',
    },
  });
  assert.deepEqual(
    seen.map((s) => [s.method, s.url, s.headers.authorization]),
    [
      ['GET', '/v1/checkouts/co_9', 'Bearer polar_oat_test'],
      ['GET', '/v1/subscriptions/sub_9', 'Bearer polar_oat_test'],
    ],
  );
  assert.deepEqual(
    await cardPsp.fetchStatus(ctx(), { paymentId: input.paymentId, providerRef: null }),
    {
      kind: 'none',
    },
  );
});
