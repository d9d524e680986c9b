/**
 * The SDK's payment calls against a real gateway, through a real loopback proxy that can cut
 * connections or answer 5xx by itself, so retries meet real failures.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import {
  Paygate,
  PaygateAuthenticationError,
  PaygateBadRequestError,
  PaygateConflictError,
  PaygateConnectionError,
  PaygateError,
  PaygateGatewayTimeoutError,
  PaygateNotFoundError,
  PaygateProviderError,
  PaygateServerError,
  PaygateTimeoutError,
  PaygateUnavailableError,
  PaygateUnprocessableError,
  type CreatePaymentParams,
} from '../../sdk/src/index.js';
import { freePort } from '../../scripts/net.js';
import type { AppWithSecrets } from '../helpers/contract.js';
import { count, HEX32, RFC3339_UTC } from '../helpers/core.js';
import { FaultProxy } from '../helpers/faultProxy.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let gw: TestGateway;
let app: AppWithSecrets;
let proxy: FaultProxy;
let paygate: Paygate;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  proxy = new FaultProxy(gw.url);
  await proxy.start();
  paygate = client(proxy.url);
});
after(async () => {
  await proxy?.stop();
  await gw?.stop();
});
beforeEach(() => {
  proxy.seen.length = 0;
  proxy.plan = [];
});

function client(baseUrl: string, signingSecret = app.signing_secret): Paygate {
  return new Paygate({
    baseUrl,
    apiKey: app.api_key,
    signingSecret,
    retry: { maxRetries: 2, baseDelayMs: 20, maxDelayMs: 5000 },
  });
}

let buyer = 0;
function qris(overrides: Partial<CreatePaymentParams> = {}): CreatePaymentParams {
  return {
    external_user_id: `sdk-buyer-${++buyer}`,
    email: 'buyer@example.com',
    amount_minor: 25000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/orders/1',
    metadata: { order_id: `order-${buyer}` },
    ...overrides,
  };
}

function paymentsOfApp(): Promise<number> {
  return count(gw.databaseUrl, 'payments WHERE app_id = $1', [app.app_id]);
}

async function sim(providerRef: string, action: string): Promise<void> {
  const res = await fetch(`${gw.url}/sim/idr_psp/payments/${providerRef}/${action}`, {
    method: 'POST',
  });
  assert.equal(res.status, 200, await res.text());
}

/** Waits (bounded) until the proxy has seen n reads of the payment. */
async function reads(paymentId: string, n: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (proxy.requests('GET', `/v1/payments/${paymentId}`).length < n) {
    if (Date.now() > until) throw new Error(`fewer than ${n} reads of ${paymentId}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function rejects<E extends Error>(
  promise: Promise<unknown>,
  Class: new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof Class, `expected ${Class.name}, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected ${Class.name}, but it resolved`);
}

test('create: 201 shape, a generated UUID Idempotency-Key, a signed request the gateway accepts', async () => {
  const created = await paygate.payments.create(qris({ invoice_prefix: 'SHOP' }));
  assert.match(created.payment_id, HEX32);
  assert.equal(created.status, 'initiated');
  const publicBase = `http://localhost:${new URL(gw.url).port}`;
  assert.ok(created.checkout_url.startsWith(`${publicBase}/sim/idr_psp/`), created.checkout_url);
  assert.match(created.invoice_number ?? '', /^SHOP-\d{6}$/);
  assert.equal(created.qr_string, undefined);
  const [post] = proxy.requests('POST', '/v1/payments');
  assert.match(String(post?.headers['idempotency-key']), UUID);
  assert.equal(post?.headers['x-pay-key'], app.api_key);
  assert.equal(post?.headers['content-type'], 'application/json');
});

test('get: the canonical payment, field for field', async () => {
  const body = qris();
  const created = await paygate.payments.create(body);
  const p = await paygate.payments.get(created.payment_id);
  assert.deepEqual(Object.keys(p), [
    'payment_id',
    'status',
    'amount_minor',
    'currency',
    'method',
    'provider',
    'provider_ref',
    'metadata',
    'invoice_number',
    'last_error',
    'created_at',
    'updated_at',
  ]);
  assert.equal(p.payment_id, created.payment_id);
  assert.equal(p.status, 'initiated');
  assert.equal(p.amount_minor, 25000);
  assert.equal(p.currency, 'IDR');
  assert.equal(p.method, 'qris');
  assert.equal(p.provider, 'idr_psp');
  assert.ok(p.provider_ref.length > 0);
  assert.deepEqual(p.metadata, body.metadata);
  assert.equal(p.invoice_number, '');
  assert.equal(p.last_error, '');
  assert.match(p.created_at, RFC3339_UTC);
  assert.match(p.updated_at, RFC3339_UTC);
});

test('direct QR: create returns qr_string and qr_image_url', async () => {
  const direct = await startTestGateway({ IDR_PSP_DIRECT_QR: 'true' });
  try {
    const a = await direct.createApp();
    const c = new Paygate({
      baseUrl: direct.url,
      apiKey: a.api_key,
      signingSecret: a.signing_secret,
    });
    const created = await c.payments.create(qris());
    assert.ok((created.qr_string ?? '').length > 0);
    const publicBase = `http://localhost:${new URL(direct.url).port}`;
    assert.ok(created.qr_image_url?.startsWith(`${publicBase}/sim/idr_psp/v2/qris/`));
    assert.equal(created.checkout_url, created.qr_image_url);
  } finally {
    await direct.stop();
  }
});

test('the same idempotencyKey twice: the first answer again, one payment', async () => {
  const before = await paymentsOfApp();
  const body = qris();
  const a = await paygate.payments.create(body, { idempotencyKey: 'order-4711' });
  const b = await paygate.payments.create(body, { idempotencyKey: 'order-4711' });
  assert.deepEqual(b, a);
  assert.equal(await paymentsOfApp(), before + 1);
  assert.deepEqual(
    proxy.requests('POST', '/v1/payments').map((s) => s.headers['idempotency-key']),
    ['order-4711', 'order-4711'],
  );
});

test('a connection cut before the gateway answers: retried with the same key and body, one payment', async () => {
  const before = await paymentsOfApp();
  proxy.plan = ['drop'];
  const created = await paygate.payments.create(qris());
  const posts = proxy.requests('POST', '/v1/payments');
  assert.equal(posts.length, 2);
  assert.equal(posts[0]?.headers['idempotency-key'], posts[1]?.headers['idempotency-key']);
  assert.equal(posts[0]?.body, posts[1]?.body);
  assert.equal(await paymentsOfApp(), before + 1);
  assert.equal((await paygate.payments.get(created.payment_id)).status, 'initiated');
});

test('the answer lost after the gateway created the payment: the retry replays it, one payment', async () => {
  const before = await paymentsOfApp();
  proxy.plan = ['forward-then-drop'];
  const created = await paygate.payments.create(qris());
  assert.equal(proxy.requests('POST', '/v1/payments').length, 2);
  assert.equal(await paymentsOfApp(), before + 1);
  const rows = await count(gw.databaseUrl, 'payments WHERE app_id = $1 AND id = $2', [
    app.app_id,
    created.payment_id,
  ]);
  assert.equal(rows, 1);
});

test('503 with Retry-After: waits as asked, then retries with the same key', async () => {
  proxy.plan = [{ status: 503, body: 'service unavailable', headers: { 'retry-after': '1' } }];
  await paygate.payments.create(qris());
  const posts = proxy.requests('POST', '/v1/payments');
  assert.equal(posts.length, 2);
  assert.equal(posts[0]?.headers['idempotency-key'], posts[1]?.headers['idempotency-key']);
  const gap = (posts[1]?.at ?? 0) - (posts[0]?.at ?? 0);
  assert.ok(gap >= 950, `the retry came ${gap.toFixed(0)} ms after a Retry-After of 1 s`);
});

test('500 once: retried, and the retry succeeds', async () => {
  proxy.plan = [{ status: 500, body: 'payment create failed' }];
  const created = await paygate.payments.create(qris());
  assert.match(created.payment_id, HEX32);
  assert.equal(proxy.requests('POST', '/v1/payments').length, 2);
});

test('5xx on every attempt: gives up after maxRetries with the last error', async () => {
  const unavailable = { status: 503, body: 'service unavailable' };
  proxy.plan = [unavailable, unavailable, unavailable];
  const err = await rejects(paygate.payments.create(qris()), PaygateUnavailableError);
  assert.equal(err.status, 503);
  assert.equal(err.message, 'service unavailable');
  assert.ok(err instanceof PaygateServerError && err instanceof PaygateError);
  assert.equal(proxy.requests('POST', '/v1/payments').length, 3);
});

test('reads are retried too', async () => {
  const created = await paygate.payments.create(qris());
  proxy.plan = ['drop', { status: 504, body: 'provider checkout failed: unknown' }];
  const p = await paygate.payments.get(created.payment_id);
  assert.equal(p.payment_id, created.payment_id);
  assert.equal(proxy.requests('GET', '/v1/payments/').length, 3);
});

test('nobody listening: PaygateConnectionError after the retries', async () => {
  const port = await freePort();
  const err = await rejects(
    client(`http://127.0.0.1:${port}`).payments.get('0'.repeat(32)),
    PaygateConnectionError,
  );
  assert.equal(err.message, `request to http://127.0.0.1:${port} failed: ECONNREFUSED`);
});

test('400: PaygateBadRequestError with the gateway text, not retried', async () => {
  const withoutReturnUrl: Partial<CreatePaymentParams> = qris();
  delete withoutReturnUrl.return_url;
  const err = await rejects(
    paygate.payments.create(withoutReturnUrl as CreatePaymentParams),
    PaygateBadRequestError,
  );
  assert.equal(err.status, 400);
  assert.equal(err.message, 'missing required fields: return_url');
  assert.equal(proxy.seen.length, 1);
});

test('401: PaygateAuthenticationError for a wrong signing secret, not retried', async () => {
  const err = await rejects(
    client(proxy.url, 'sk_wrong').payments.create(qris()),
    PaygateAuthenticationError,
  );
  assert.equal(err.status, 401);
  assert.equal(err.message, 'bad signature');
  assert.equal(proxy.seen.length, 1);
});

test('404: PaygateNotFoundError for an unknown payment', async () => {
  const err = await rejects(paygate.payments.get('0'.repeat(32)), PaygateNotFoundError);
  assert.equal(err.status, 404);
  assert.equal(err.message, 'payment not found');
  assert.equal(proxy.seen.length, 1);
});

test('409: PaygateConflictError for a key reused with another body, not retried', async () => {
  await paygate.payments.create(qris(), { idempotencyKey: 'conflict-1' });
  const err = await rejects(
    paygate.payments.create(qris(), { idempotencyKey: 'conflict-1' }),
    PaygateConflictError,
  );
  assert.equal(err.status, 409);
  assert.equal(err.message, 'idempotency conflict — different body for same key');
  assert.equal(proxy.seen.length, 2);
});

test('422: PaygateUnprocessableError for a method no provider routes, not retried', async () => {
  const err = await rejects(
    paygate.payments.create(qris({ currency: 'USD' })),
    PaygateUnprocessableError,
  );
  assert.equal(err.status, 422);
  assert.equal(err.message, 'no provider supports method=qris for currency=USD');
  assert.equal(proxy.seen.length, 1);
});

test('502 (the provider refused): PaygateProviderError with its text, never retried, one failed payment', async () => {
  const before = await paymentsOfApp();
  const noEmail = qris({ method: 'va_bni' });
  delete noEmail.email;
  const err = await rejects(paygate.payments.create(noEmail), PaygateProviderError);
  assert.equal(err.status, 502);
  assert.equal(
    err.message,
    'provider checkout failed: customer_details.email is required for bni_va',
  );
  // D15: a refusal is final; a retry would only make another failed payment.
  assert.equal(proxy.requests('POST', '/v1/payments').length, 1);
  assert.equal(await paymentsOfApp(), before + 1);
});

test('504 (outcome unknown) once: retried with the same key and body, one payment', async () => {
  const before = await paymentsOfApp();
  proxy.plan = [
    { status: 504, body: 'provider checkout failed: idr_psp did not answer within 15000 ms' },
  ];
  const created = await paygate.payments.create(qris());
  assert.match(created.payment_id, HEX32);
  const posts = proxy.requests('POST', '/v1/payments');
  assert.equal(posts.length, 2);
  assert.equal(posts[0]?.headers['idempotency-key'], posts[1]?.headers['idempotency-key']);
  assert.equal(posts[0]?.body, posts[1]?.body);
  assert.equal(await paymentsOfApp(), before + 1);
});

test('504 on every attempt: PaygateGatewayTimeoutError after the retries', async () => {
  const unknown = { status: 504, body: 'provider checkout failed: idr_psp unreachable' };
  proxy.plan = [unknown, unknown, unknown];
  const err = await rejects(paygate.payments.create(qris()), PaygateGatewayTimeoutError);
  assert.equal(err.status, 504);
  assert.equal(err.message, 'provider checkout failed: idr_psp unreachable');
  assert.ok(err instanceof PaygateServerError && !(err instanceof PaygateProviderError));
  assert.equal(proxy.requests('POST', '/v1/payments').length, 3);
});

test('502 from anywhere is final: not retried', async () => {
  proxy.plan = [{ status: 502, body: 'provider checkout failed: refused' }];
  const err = await rejects(paygate.payments.create(qris()), PaygateProviderError);
  assert.equal(err.message, 'provider checkout failed: refused');
  assert.equal(proxy.requests('POST', '/v1/payments').length, 1);
});

test('waitForFinal: polls while initiated and returns the succeeded payment', async () => {
  const created = await paygate.payments.create(qris());
  const provider = (await paygate.payments.get(created.payment_id)).provider_ref;
  proxy.seen.length = 0;
  const waiting = paygate.payments.waitForFinal(created.payment_id, { intervalMs: 50 });
  await reads(created.payment_id, 1);
  await sim(provider, 'pay');
  const final = await waiting;
  assert.equal(final.status, 'succeeded');
  assert.equal(final.payment_id, created.payment_id);
  assert.ok(proxy.requests('GET', `/v1/payments/${created.payment_id}`).length >= 2);
});

test('waitForFinal: a failed payment comes back failed with the provider text', async () => {
  const created = await paygate.payments.create(qris());
  const ref = (await paygate.payments.get(created.payment_id)).provider_ref;
  await sim(ref, 'expire');
  const final = await paygate.payments.waitForFinal(created.payment_id);
  assert.equal(final.status, 'failed');
  assert.equal(final.last_error, 'Transaction expired: QR not paid within 20 minutes');
});

test('waitForFinal: about one read a second by default', async () => {
  const created = await paygate.payments.create(qris());
  proxy.seen.length = 0;
  const controller = new AbortController();
  const waiting = paygate.payments.waitForFinal(created.payment_id, {
    signal: controller.signal,
  });
  await reads(created.payment_id, 2);
  controller.abort();
  await assert.rejects(waiting, { name: 'AbortError' });
  const [first, second] = proxy.requests('GET', `/v1/payments/${created.payment_id}`);
  const gap = (second?.at ?? 0) - (first?.at ?? 0);
  assert.ok(gap >= 950, `second read ${gap.toFixed(0)} ms after the first`);
});

test('waitForFinal: an AbortSignal stops it with the signal reason', async () => {
  const created = await paygate.payments.create(qris());
  const controller = new AbortController();
  const waiting = paygate.payments.waitForFinal(created.payment_id, {
    signal: controller.signal,
    intervalMs: 50,
  });
  await reads(created.payment_id, 1);
  const reason = new Error('buyer left');
  controller.abort(reason);
  await assert.rejects(waiting, (err) => err === reason);
  const readsSoFar = proxy.requests('GET', `/v1/payments/${created.payment_id}`).length;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(proxy.requests('GET', `/v1/payments/${created.payment_id}`).length, readsSoFar);
});

test('waitForFinal: an already aborted signal rejects before any request', async () => {
  const err = await rejects(
    paygate.payments.waitForFinal('0'.repeat(32), { signal: AbortSignal.abort() }),
    Error,
  );
  assert.equal(err.name, 'AbortError');
  assert.equal(proxy.seen.length, 0);
});

test('waitForFinal: timeoutMs ends it with PaygateTimeoutError and the last state', async () => {
  const created = await paygate.payments.create(qris());
  const err = await rejects(
    paygate.payments.waitForFinal(created.payment_id, { timeoutMs: 300, intervalMs: 50 }),
    PaygateTimeoutError,
  );
  assert.equal(err.message, `payment ${created.payment_id} not final after 300 ms`);
  assert.equal(err.payment?.status, 'initiated');
  assert.equal(err.payment?.payment_id, created.payment_id);
});

test('waitForFinal: errors of the read are not swallowed', async () => {
  const err = await rejects(
    paygate.payments.waitForFinal('f'.repeat(32), { timeoutMs: 5000 }),
    PaygateNotFoundError,
  );
  assert.equal(err.message, 'payment not found');
});
