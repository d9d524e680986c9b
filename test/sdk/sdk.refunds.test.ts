/** refunds.create against a real gateway, through a real loopback proxy for the retries. */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import {
  Paygate,
  PaygateBadRequestError,
  PaygateNotFoundError,
  PaygateProviderError,
  PaygateUnprocessableError,
  type CreatePaymentParams,
} from '../../sdk/src/index.js';
import type { AppWithSecrets } from '../helpers/contract.js';
import { count, HEX32, RFC3339_UTC } from '../helpers/core.js';
import { FaultProxy } from '../helpers/faultProxy.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Short, so that the refund_timeout scenario's lost answer (a real 504) comes quickly. */
const PROVIDER_TIMEOUT_MS = 1500;

let gw: TestGateway;
let app: AppWithSecrets;
let proxy: FaultProxy;
let paygate: Paygate;

before(async () => {
  gw = await startTestGateway({ PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) });
  app = await gw.createApp();
  proxy = new FaultProxy(gw.url);
  await proxy.start();
  paygate = new Paygate({
    baseUrl: proxy.url,
    apiKey: app.api_key,
    signingSecret: app.signing_secret,
    retry: { maxRetries: 2, baseDelayMs: 20 },
  });
});
after(async () => {
  await proxy?.stop();
  await gw?.stop();
});
beforeEach(() => {
  proxy.seen.length = 0;
  proxy.plan = [];
});

const QRIS: CreatePaymentParams = {
  external_user_id: 'refund-buyer',
  email: 'buyer@example.com',
  amount_minor: 50000,
  currency: 'IDR',
  method: 'qris',
  return_url: 'https://shop.example/back',
};

/** A payment the simulator reports paid. */
async function paid(body: CreatePaymentParams = QRIS): Promise<string> {
  const created = await paygate.payments.create(body);
  const { provider, provider_ref } = await paygate.payments.get(created.payment_id);
  const res = await fetch(`${gw.url}/sim/${provider}/payments/${provider_ref}/pay`, {
    method: 'POST',
  });
  assert.equal(res.status, 200, await res.text());
  assert.equal((await paygate.payments.waitForFinal(created.payment_id)).status, 'succeeded');
  return created.payment_id;
}

function refundsOf(paymentId: string): Promise<number> {
  return count(gw.databaseUrl, 'refunds WHERE payment_id = $1', [paymentId]);
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

test('create: a synchronous refund answers succeeded, with a generated UUID Idempotency-Key', async () => {
  const paymentId = await paid();
  proxy.seen.length = 0;
  const r = await paygate.refunds.create({
    payment_id: paymentId,
    amount_minor: 20000,
    reason: 'damaged box',
  });
  assert.match(r.refund_id, HEX32);
  assert.equal(r.payment_id, paymentId);
  assert.equal(r.status, 'succeeded');
  assert.equal(r.amount_minor, 20000);
  assert.equal(r.currency, 'IDR');
  assert.notEqual(r.provider_ref, '');
  assert.equal(r.reason, 'damaged box');
  assert.match(r.created_at, RFC3339_UTC);
  const [post] = proxy.requests('POST', '/v1/refunds');
  assert.match(String(post?.headers['idempotency-key']), UUID);
});

test('the same idempotencyKey twice: the first refund again, one refund', async () => {
  const paymentId = await paid();
  const a = await paygate.refunds.create({ payment_id: paymentId }, { idempotencyKey: 'rf-1' });
  const b = await paygate.refunds.create({ payment_id: paymentId }, { idempotencyKey: 'rf-1' });
  assert.deepEqual(b, a);
  assert.equal(a.amount_minor, 50000);
  assert.equal(await refundsOf(paymentId), 1);
});

test('the answer lost after the refund was made: the retry replays it, one refund', async () => {
  const paymentId = await paid();
  proxy.seen.length = 0;
  proxy.plan = ['forward-then-drop'];
  const r = await paygate.refunds.create({ payment_id: paymentId });
  const posts = proxy.requests('POST', '/v1/refunds');
  assert.equal(posts.length, 2);
  assert.equal(posts[0]?.headers['idempotency-key'], posts[1]?.headers['idempotency-key']);
  assert.equal(r.status, 'succeeded');
  assert.equal(await refundsOf(paymentId), 1);
});

test('503 once: retried with the same key, one refund', async () => {
  const paymentId = await paid();
  proxy.seen.length = 0;
  proxy.plan = [{ status: 503, body: 'service unavailable' }];
  await paygate.refunds.create({ payment_id: paymentId });
  const posts = proxy.requests('POST', '/v1/refunds');
  assert.equal(posts.length, 2);
  assert.equal(posts[0]?.headers['idempotency-key'], posts[1]?.headers['idempotency-key']);
  assert.equal(await refundsOf(paymentId), 1);
});

test('422: a payment not yet paid, a second refund, too much', async () => {
  const created = await paygate.payments.create(QRIS);
  const notPaid = await rejects(
    paygate.refunds.create({ payment_id: created.payment_id }),
    PaygateUnprocessableError,
  );
  assert.equal(notPaid.status, 422);
  assert.equal(notPaid.message, "payment must be in 'succeeded' state to refund (got initiated)");

  const paymentId = await paid();
  const tooMuch = await rejects(
    paygate.refunds.create({ payment_id: paymentId, amount_minor: 50001 }),
    PaygateUnprocessableError,
  );
  assert.equal(tooMuch.message, 'refund amount exceeds payment amount');
  await paygate.refunds.create({ payment_id: paymentId });
  proxy.seen.length = 0;
  const second = await rejects(
    paygate.refunds.create({ payment_id: paymentId }),
    PaygateUnprocessableError,
  );
  assert.equal(second.message, 'payment already has a refund');
  assert.equal(proxy.seen.length, 1);
});

test('400 and 404: bad amount, unknown payment', async () => {
  const bad = await rejects(
    paygate.refunds.create({ payment_id: '0'.repeat(32), amount_minor: 0 }),
    PaygateBadRequestError,
  );
  assert.equal(bad.status, 400);
  assert.equal(bad.message, 'amount_minor must be a positive integer');
  const missing = await rejects(
    paygate.refunds.create({ payment_id: '0'.repeat(32) }),
    PaygateNotFoundError,
  );
  assert.equal(missing.message, 'payment not found');
});

test('502: card refunds are made at the provider (PaygateProviderError)', async () => {
  const paymentId = await paid({
    external_user_id: 'card-buyer',
    email: 'card@example.com',
    amount_minor: 1999,
    currency: 'USD',
    method: 'card_psp',
    return_url: 'https://shop.example/back',
    metadata: { card_psp_product_id: 'prod_basic' },
  });
  const err = await rejects(
    paygate.refunds.create({ payment_id: paymentId }),
    PaygateProviderError,
  );
  assert.equal(err.status, 502);
  assert.equal(err.message, 'refund failed: card_psp refunds are made at the provider');
  assert.equal(await refundsOf(paymentId), 0);
  // D15: a refusal is final, never retried.
  assert.equal(proxy.requests('POST', '/v1/refunds').length, 1);
});

test('504 from the gateway (the provider made the refund, its answer was lost): retried with the same key, one refund', async () => {
  const paymentId = await paid({
    ...QRIS,
    external_user_id: 'refund-timeout-buyer',
    metadata: { test_scenario: 'refund_timeout' },
  });
  proxy.seen.length = 0;
  const r = await paygate.refunds.create({ payment_id: paymentId });
  const posts = proxy.requests('POST', '/v1/refunds');
  // The first answer was the gateway's own 504 (outcome unknown); the retry resolved it.
  assert.equal(posts.length, 2);
  assert.equal(posts[0]?.headers['idempotency-key'], posts[1]?.headers['idempotency-key']);
  assert.equal(posts[0]?.body, posts[1]?.body);
  assert.equal(r.status, 'succeeded');
  assert.equal(await refundsOf(paymentId), 1);
});
