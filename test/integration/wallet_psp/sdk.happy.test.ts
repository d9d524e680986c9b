import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ApiError,
  CheckoutPaymentIntent,
  type Client,
  OrdersController,
  PaymentsController,
} from '@paypal/paypal-server-sdk';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import { sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paypalClient, paypalSchemas } from '../../helpers/paypalSdk.js';
import { act } from '../../helpers/drivers/wallet_psp.js';
import { receivedBody, type ArchivedBodyColumns } from '../../helpers/inboundBody.js';

// The wallet_psp simulator seen from PayPal's side of the wire: PayPal's own server SDK makes
// every call the adapter's operations need (token, create, get, capture, get capture, refund)
// and reads every answer through its response schemas; every webhook the simulator sends has
// its resource checked against the SDK's order, captured payment and refund schemas.

let gw: TestGateway;
let app: AppWithSecrets;
let client: Client;
let orders: OrdersController;
let payments: PaymentsController;
let schemaErrors: Awaited<ReturnType<typeof paypalSchemas>>;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  const creds = simulatorEndpoint('wallet_psp', gw.config.masterKey, '').credentials;
  client = paypalClient(`${gw.url}/sim/wallet_psp`, {
    clientId: creds.clientId ?? '',
    clientSecret: creds.clientSecret ?? '',
  });
  orders = new OrdersController(client);
  payments = new PaymentsController(client);
  schemaErrors = await paypalSchemas();
});
after(async () => {
  await gw?.stop();
});

const purchaseUnit = (customId: string) => ({
  referenceId: customId,
  customId,
  amount: { currencyCode: 'USD', value: '12.34' },
});

test('an order created without payment_source is CREATED with an approve link', async () => {
  const { result, statusCode } = await orders.createOrder({
    body: { intent: CheckoutPaymentIntent.Capture, purchaseUnits: [purchaseUnit('plain-1')] },
    paypalRequestId: 'sdk-plain-1',
  });
  assert.equal(statusCode, 201);
  assert.equal(result.status, 'CREATED');
  const rels = (result.links ?? []).map((l) => `${l.rel} ${l.method}`);
  assert.deepEqual(rels, ['self GET', 'approve GET', 'update PATCH', 'capture POST']);
  const approve = result.links?.find((l) => l.rel === 'approve')?.href ?? '';
  assert.ok(approve.endsWith(`/sim/wallet_psp/checkoutnow?token=${result.id}`), approve);
  assert.equal(result.paymentSource, undefined);
  // The buyer can approve it on the simulator page like any other order.
  assert.equal((await fetch(approve)).status, 200);
});

test('the full order life through the SDK: create, get, approve, capture, get capture, refund', async () => {
  const created = await orders.createOrder({
    body: {
      intent: CheckoutPaymentIntent.Capture,
      purchaseUnits: [purchaseUnit('life-1')],
      paymentSource: {
        paypal: {
          emailAddress: 'buyer@example.com',
          experienceContext: {
            returnUrl: 'https://shop.example/r',
            cancelUrl: 'https://shop.example/c',
          },
        },
      },
    },
    paypalRequestId: 'sdk-life-1',
  });
  assert.equal(created.statusCode, 201);
  assert.equal(created.result.status, 'PAYER_ACTION_REQUIRED');
  const id = created.result.id ?? '';
  assert.ok(created.result.links?.some((l) => l.rel === 'payer-action'));

  // A replay of the request id answers the same order.
  const replay = await orders.createOrder({
    body: { intent: CheckoutPaymentIntent.Capture, purchaseUnits: [purchaseUnit('life-1')] },
    paypalRequestId: 'sdk-life-1',
  });
  assert.equal(replay.result.id, id);

  const got = await orders.getOrder({ id });
  assert.equal(got.result.purchaseUnits?.[0]?.customId, 'life-1');

  // The buyer approves (the order is no gateway payment: the gateway refuses the event).
  assert.equal((await act(gw, id, 'pay')).gateway_status, 400);
  assert.equal((await orders.getOrder({ id })).result.status, 'APPROVED');

  const captured = await orders.captureOrder({ id, paypalRequestId: 'sdk-capture-1' });
  assert.equal(captured.statusCode, 201);
  assert.equal(captured.result.status, 'COMPLETED');
  const capture = captured.result.purchaseUnits?.[0]?.payments?.captures?.[0];
  assert.equal(capture?.status, 'COMPLETED');
  const captureId = capture?.id ?? '';

  const fetched = await payments.getCapturedPayment({ captureId });
  assert.equal(fetched.statusCode, 200);
  assert.equal(fetched.result.id, captureId);
  assert.equal(fetched.result.amount?.value, '12.34');
  assert.equal(fetched.result.customId, 'life-1');
  assert.deepEqual(
    fetched.result.links?.map((l) => l.rel),
    ['self', 'refund', 'up'],
  );

  const refunded = await payments.refundCapturedPayment({
    captureId,
    paypalRequestId: 'sdk-refund-1',
    body: { amount: { currencyCode: 'USD', value: '2.34' }, noteToPayer: 'partial' },
  });
  assert.equal(refunded.statusCode, 201);
  assert.equal(refunded.result.status, 'COMPLETED');
  assert.equal(refunded.result.amount?.value, '2.34');
  assert.equal(
    (await payments.getCapturedPayment({ captureId })).result.status,
    'PARTIALLY_REFUNDED',
  );
  // The SDK's getRefund (GET /v2/payments/refunds/{id}): the refund as it stands, linked up
  // to its capture.
  const refundRead = await payments.getRefund({ refundId: refunded.result.id ?? '' });
  assert.equal(refundRead.statusCode, 200);
  assert.equal(refundRead.result.id, refunded.result.id);
  assert.equal(refundRead.result.status, 'COMPLETED');
  assert.equal(refundRead.result.amount?.value, '2.34');
  assert.ok(
    refundRead.result.links?.some(
      (l) => l.rel === 'up' && l.href.endsWith(`/captures/${captureId}`),
    ),
  );
  assert.deepEqual(schemaErrors('refund', JSON.parse(refundRead.body as string)), []);
  await assert.rejects(payments.getRefund({ refundId: 'NOSUCHREFUND00000' }), (err) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.statusCode, 404);
    return true;
  });

  // A second capture is PayPal's 422, read by the SDK as an ApiError.
  await assert.rejects(orders.captureOrder({ id }), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.statusCode, 422);
    assert.match(String(err.body), /ORDER_ALREADY_CAPTURED/);
    return true;
  });
  await assert.rejects(payments.getCapturedPayment({ captureId: 'NOSUCHCAPTURE0000' }), (err) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.statusCode, 404);
    return true;
  });
});

const RESOURCE_SCHEMA: Record<string, 'order' | 'capture' | 'refund'> = {
  'checkout-order': 'order',
  capture: 'capture',
  refund: 'refund',
};

test('every webhook body of a gateway payment, capture and refund fits the SDK schemas', async () => {
  const res = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'user-sdk',
    email: 'buyer@example.com',
    amount_minor: 2599,
    currency: 'EUR',
    method: 'wallet_psp',
    return_url: 'https://shop.example/return',
  });
  assert.equal(res.status, 201, res.text);
  const payment = res.json<{ payment_id: string }>();
  const view = await gw.v1(app, 'GET', `/v1/payments/${payment.payment_id}`);
  const ref = view.json<{ provider_ref: string }>().provider_ref;
  assert.equal((await act(gw, ref, 'pay')).gateway_status, 200);
  const refund = await gw.v1(app, 'POST', '/v1/refunds', {
    payment_id: payment.payment_id,
    amount_minor: 599,
    reason: 'pending: returned goods',
  });
  assert.equal(refund.status, 201, refund.text);
  assert.equal((await act(gw, ref, 'refund_fail')).gateway_status, 200);
  const second = await gw.v1(app, 'POST', '/v1/refunds', {
    payment_id: payment.payment_id,
    amount_minor: 599,
    reason: 'pending: again',
  });
  assert.equal(second.status, 201, second.text);
  assert.equal((await act(gw, ref, 'refund_succeed')).gateway_status, 200);

  // A second payment the buyer abandons.
  const res2 = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'user-sdk',
    amount_minor: 100,
    currency: 'USD',
    method: 'wallet_psp',
    return_url: 'https://shop.example/return',
  });
  const ref2 = (
    await gw.v1(app, 'GET', `/v1/payments/${res2.json<{ payment_id: string }>().payment_id}`)
  ).json<{ provider_ref: string }>().provider_ref;
  assert.equal((await act(gw, ref2, 'cancel')).gateway_status, 200);
  // And a third one whose capture is declined.
  const res3 = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'user-sdk',
    amount_minor: 100,
    currency: 'GBP',
    method: 'wallet_psp',
    return_url: 'https://shop.example/return',
  });
  const ref3 = (
    await gw.v1(app, 'GET', `/v1/payments/${res3.json<{ payment_id: string }>().payment_id}`)
  ).json<{ provider_ref: string }>().provider_ref;
  assert.equal((await act(gw, ref3, 'fail')).gateway_status, 200);

  const rows = await sql<ArchivedBodyColumns>(
    gw.databaseUrl,
    `SELECT provider, raw_body, body_codec FROM inbound_events WHERE provider = 'wallet_psp' ORDER BY id`,
  );
  const types = new Set<string>();
  for (const row of rows) {
    const event = JSON.parse(receivedBody(row).toString('utf8')) as Record<string, unknown>;
    const type = String(event.event_type);
    types.add(type);
    for (const field of ['id', 'create_time', 'resource_type', 'event_type', 'summary']) {
      assert.equal(typeof event[field], 'string', `${type} ${field}`);
    }
    assert.equal(event.event_version, '1.0');
    assert.ok(Array.isArray(event.links), `${type} links`);
    const kind = RESOURCE_SCHEMA[String(event.resource_type)];
    assert.ok(kind, `${type}: resource_type ${String(event.resource_type)}`);
    assert.deepEqual(schemaErrors(kind, event.resource), [], type);
  }
  for (const t of [
    'CHECKOUT.ORDER.APPROVED',
    'PAYMENT.CAPTURE.COMPLETED',
    'PAYMENT.CAPTURE.DENIED',
    'PAYMENT.REFUND.FAILED',
    'PAYMENT.CAPTURE.REFUNDED',
    'CHECKOUT.ORDER.VOIDED',
  ]) {
    assert.ok(types.has(t), `no ${t} seen: ${[...types].join(', ')}`);
  }
});
