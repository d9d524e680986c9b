/**
 * webhooks.verify on real deliveries: a real gateway sends its outbound webhooks to a real
 * receiver, and the SDK checks the captured bytes and headers. Forged deliveries are signed
 * here with node:crypto, independently of the SDK.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, test } from 'node:test';
import {
  Paygate,
  PaygateWebhookError,
  verifyWebhook,
  type CreatePaymentParams,
  type WebhookEvent,
} from '../../sdk/src/index.js';
import { eventually } from '../helpers/eventually.js';
import { HEX32, RFC3339_UTC } from '../helpers/core.js';
import { startWithReceiver, type GatewayWithReceiver } from '../helpers/gateway.js';
import type { Received } from '../helpers/receiver.js';

let env: GatewayWithReceiver;
let paygate: Paygate;
let secret: string;
/** One real payment.succeeded delivery, captured by the receiver. */
let succeeded: Received;
let succeededId: string;

before(async () => {
  env = await startWithReceiver();
  secret = env.app.webhook_secret;
  paygate = new Paygate({
    baseUrl: env.gw.url,
    apiKey: env.app.api_key,
    signingSecret: env.app.signing_secret,
  });
  succeededId = await pay(QRIS);
  succeeded = await delivery(succeededId, 'payment.succeeded');
});
after(async () => {
  await env?.stop();
});

async function pay(body: CreatePaymentParams, action = 'pay'): Promise<string> {
  const created = await paygate.payments.create(body);
  const { provider, provider_ref } = await paygate.payments.get(created.payment_id);
  await simulate(provider, provider_ref, action);
  return created.payment_id;
}

async function simulate(provider: string, ref: string, action: string): Promise<void> {
  const res = await fetch(`${env.gw.url}/sim/${provider}/payments/${ref}/${action}`, {
    method: 'POST',
  });
  assert.equal(res.status, 200, await res.text());
}

function delivery(paymentId: string, event: string): Promise<Received> {
  return eventually(async () =>
    env.receiver.received.find((r) => {
      const b = JSON.parse(r.body) as { payment_id: string; event: string };
      return b.payment_id === paymentId && b.event === event;
    }),
  );
}

const QRIS: CreatePaymentParams = {
  external_user_id: 'hook-buyer',
  email: 'buyer@example.com',
  amount_minor: 30000,
  currency: 'IDR',
  method: 'qris',
  return_url: 'https://shop.example/back',
  metadata: { order_id: 'A-1', note: 'Café ☕ für Jürgen' },
};

/** The captured request as a server would hand it over: raw bytes and Node's headers. */
function raw(d: Received): { body: Buffer; headers: IncomingHttpHeaders } {
  return { body: Buffer.from(d.body, 'utf8'), headers: d.headers };
}

function forged(body: string, timestamp: number, key = secret): Record<string, string> {
  return {
    'x-pay-timestamp': String(timestamp),
    'x-pay-signature': createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex'),
  };
}

function refused(fn: () => unknown, message: string): void {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof PaygateWebhookError, String(err));
    assert.equal(err.message, message);
    return true;
  });
}

const now = () => Math.floor(Date.now() / 1000);

test('a real payment.succeeded delivery verifies over its raw bytes and comes back typed', () => {
  const { body, headers } = raw(succeeded);
  const event = paygate.webhooks.verify(body, headers, secret);
  assert.equal(event.event, 'payment.succeeded');
  if (event.event !== 'payment.succeeded') return;
  // Narrowed to PaymentEvent: method and amount exist on this branch only.
  assert.equal(event.payment_id, succeededId);
  assert.equal(event.status, 'succeeded');
  assert.equal(event.amount, 30000);
  assert.equal(event.currency, 'IDR');
  assert.equal(event.method, 'qris');
  assert.equal(event.provider, 'idr_psp');
  assert.ok(event.provider_ref.length > 0);
  assert.match(event.timestamp, RFC3339_UTC);
  assert.deepEqual(event.metadata, QRIS.metadata);
  assert.equal(paygate.webhooks.eventId(headers), succeeded.headers['x-pay-event-id']);
  assert.ok((paygate.webhooks.eventId(headers) ?? '').length > 0);
});

test('the same delivery verifies as a string body and with Fetch API Headers', () => {
  const headers = new Headers();
  for (const [k, v] of Object.entries(succeeded.headers))
    if (typeof v === 'string') headers.set(k, v);
  const event = verifyWebhook(succeeded.body, headers, secret);
  assert.equal(event.payment_id, succeededId);
  assert.equal(paygate.webhooks.eventId(headers), succeeded.headers['x-pay-event-id']);
});

test('a tampered body is refused: bad signature', () => {
  const { body, headers } = raw(succeeded);
  const tampered = Buffer.from(body.toString('utf8').replace('"amount":30000', '"amount":3'));
  assert.notDeepEqual(tampered, body);
  refused(() => paygate.webhooks.verify(tampered, headers, secret), 'bad signature');
});

test('bytes decoded with another charset are refused: the signature covers the raw bytes', () => {
  const { body, headers } = raw(succeeded);
  refused(() => verifyWebhook(body.toString('latin1'), headers, secret), 'bad signature');
});

test('a wrong secret is refused: bad signature', () => {
  const { body, headers } = raw(succeeded);
  refused(() => verifyWebhook(body, headers, `${secret}x`), 'bad signature');
  refused(() => verifyWebhook(body, headers, env.app.signing_secret), 'bad signature');
});

test('a signature of another timestamp is refused', () => {
  const { body, headers } = raw(succeeded);
  const later = { ...headers, 'x-pay-timestamp': String(Number(headers['x-pay-timestamp']) + 1) };
  refused(() => verifyWebhook(body, later, secret), 'bad signature');
});

test('a malformed signature header is refused without throwing anything else', () => {
  const { body, headers } = raw(succeeded);
  const sig = String(headers['x-pay-signature']);
  for (const bad of [sig.toUpperCase(), sig.slice(2), `${sig}00`, 'zz'.repeat(32), '']) {
    const h = { ...headers, 'x-pay-signature': bad };
    refused(
      () => verifyWebhook(body, h, secret),
      bad === '' ? 'missing signature headers' : 'bad signature',
    );
  }
});

test('stale and future timestamps are refused; toleranceSec widens the window', () => {
  const body = succeeded.body;
  const stale = forged(body, now() - 301);
  refused(() => verifyWebhook(body, stale, secret), 'timestamp out of range');
  refused(() => verifyWebhook(body, forged(body, now() + 301), secret), 'timestamp out of range');
  assert.equal(verifyWebhook(body, stale, secret, { toleranceSec: 600 }).payment_id, succeededId);
  refused(
    () => verifyWebhook(body, forged(body, now() - 31), secret, { toleranceSec: 30 }),
    'timestamp out of range',
  );
});

test('missing headers and a non-integer timestamp are refused', () => {
  const body = succeeded.body;
  const good = forged(body, now());
  refused(
    () => verifyWebhook(body, { 'x-pay-signature': good['x-pay-signature'] }, secret),
    'missing signature headers',
  );
  refused(
    () => verifyWebhook(body, { 'x-pay-timestamp': good['x-pay-timestamp'] }, secret),
    'missing signature headers',
  );
  refused(
    () => verifyWebhook(body, { ...good, 'x-pay-timestamp': '1.5e9' }, secret),
    'bad timestamp',
  );
  refused(() => verifyWebhook(body, good, ''), 'webhook secret is empty');
});

test('a correctly signed body that is no event is refused', () => {
  const notJson = 'not json';
  refused(() => verifyWebhook(notJson, forged(notJson, now()), secret), 'invalid JSON body');
  const list = '[1,2]';
  refused(() => verifyWebhook(list, forged(list, now()), secret), 'invalid JSON body');
  const unknown = JSON.stringify({ event: 'payment.refunded', payment_id: '0'.repeat(32) });
  refused(
    () => verifyWebhook(unknown, forged(unknown, now()), secret),
    'unknown event type: payment.refunded',
  );
});

test('payment.failed and refund.succeeded deliveries verify and narrow', async () => {
  const failedId = await pay({ ...QRIS, external_user_id: 'hook-buyer-2' }, 'expire');
  const failed = raw(await delivery(failedId, 'payment.failed'));
  const f = verifyWebhook(failed.body, failed.headers, secret);
  assert.equal(f.event, 'payment.failed');
  assert.equal(f.status, 'failed');

  const refund = await paygate.refunds.create({ payment_id: succeededId, reason: 'too small' });
  const d = raw(await delivery(succeededId, 'refund.succeeded'));
  const event: WebhookEvent = verifyWebhook(d.body, d.headers, secret);
  assert.equal(event.event, 'refund.succeeded');
  if (event.event !== 'refund.succeeded') return;
  assert.equal(event.refund_id, refund.refund_id);
  assert.match(event.refund_id, HEX32);
  assert.equal(event.payment_id, succeededId);
  assert.equal(event.status, 'succeeded');
  assert.equal(event.amount, 30000);
  assert.equal(event.reason, 'too small');
  assert.deepEqual(event.metadata, QRIS.metadata);
});

test('subscription.canceled delivery verifies and narrows', async () => {
  const firstCharge = await pay({
    external_user_id: 'sub-buyer',
    email: 'sub@example.com',
    amount_minor: 999,
    currency: 'USD',
    method: 'card_psp',
    return_url: 'https://shop.example/back',
    metadata: { card_psp_product_id: 'prod_basic' },
  });
  const { provider, provider_ref, metadata } = await paygate.payments.get(firstCharge);
  await simulate(provider, provider_ref, 'subscription_cancel');
  const d = raw(await delivery(firstCharge, 'subscription.canceled'));
  const event = verifyWebhook(d.body, d.headers, secret);
  switch (event.event) {
    case 'subscription.canceled':
    case 'subscription.revoked':
      assert.equal(event.subscription_id, metadata.card_psp_subscription_id);
      assert.equal(event.status, 'canceled');
      assert.equal(event.payment_id, firstCharge);
      assert.equal(event.provider, 'card_psp');
      break;
    default:
      assert.fail(`unexpected ${event.event}`);
  }
});
