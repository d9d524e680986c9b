import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import {
  startWithReceiver,
  type GatewayWithReceiver,
  type TestGateway,
} from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { silentAction } from '../../helpers/payments.js';
import { type Receiver } from '../../helpers/receiver.js';

// docs/api.md#provider-webhooks: every response row of POST /webhooks/<provider>, the archive (docs/api.md#inbound-events) and the
// mode guard, driven with idr_psp notifications signed independently of the gateway.
// An idr_psp notification is signed over three of its fields only, so the gateway applies
// what the provider's status API answers, never the body: each test that moves money first
// changes the provider's state (test_scenario lost_webhook: the simulator's buyer action
// changes it and sends nothing), then posts its own notification.

let gw: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;
let serverKey: string;
const SANDBOX_KEY = 'SB-Mid-server-sandbox-key-for-tests';

let setup: GatewayWithReceiver;
before(async () => {
  setup = await startWithReceiver(
    {
      // A sandbox endpoint exists (nobody listens there): its key verifies sandbox events only.
      IDR_PSP_SANDBOX_BASE_URL: 'http://127.0.0.1:9/sandbox',
      IDR_PSP_SANDBOX_SERVER_KEY: SANDBOX_KEY,
    },
    {},
  );
  ({ gw, receiver, app } = setup);
  serverKey = idrTestServerKey(gw.config.masterKey);
});
after(() => setup?.stop());

async function newQrisPayment(amount = 50000, scenario?: 'lost_webhook'): Promise<string> {
  const res = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'buyer-9',
    email: 'buyer@example.com',
    amount_minor: amount,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
    metadata: { cart: 'C-1', ...(scenario ? { test_scenario: scenario } : {}) },
  });
  assert.equal(res.status, 201, res.text);
  return res.json<{ payment_id: string }>().payment_id;
}

/**
 * A QRIS payment the buyer has acted on at the provider (pay, expire, cancel) without the
 * provider notifying: the gateway still holds it initiated.
 */
async function actedPayment(amount: number, action: 'pay' | 'expire' | 'cancel') {
  const id = await newQrisPayment(amount, 'lost_webhook');
  const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  await silentAction(gw, 'idr', read.json<{ provider_ref: string }>().provider_ref, action);
  assert.equal((await status(id)).status, 'initiated');
  return id;
}

async function status(id: string) {
  return (await gw.v1(app, 'GET', `/v1/payments/${id}`)).json<{
    status: string;
    last_error: string;
  }>();
}

test('200 acknowledged: a settlement finalizes the payment and enqueues payment.succeeded', async () => {
  const id = await actedPayment(50000, 'pay');
  const res = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, { orderId: id, status: 'settlement', grossAmount: 50000 }),
  );
  assert.equal(res.status, 200);
  assert.equal(res.text, '{"acknowledged":true}');
  assert.match(String(res.contentType), /^application\/json/);
  assert.equal((await status(id)).status, 'succeeded');
  const got = await eventually(async () =>
    receiver.received.find((r) => JSON.parse(r.body).payment_id === id),
  );
  assert.equal(got.signatureValid, true);
  assert.equal(JSON.parse(got.body).event, 'payment.succeeded');
});

test('200 already_finalized: any further event on a terminal payment changes nothing', async () => {
  const id = await actedPayment(1000, 'pay');
  const settled = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, { orderId: id, status: 'settlement', grossAmount: 1000 }),
  );
  assert.equal(settled.text, '{"acknowledged":true}');
  for (const s of ['settlement', 'expire', 'cancel', 'pending']) {
    const res = await postWebhook(
      gw.url,
      'idr_psp',
      idrNotification(serverKey, { orderId: id, status: s, grossAmount: 1000 }),
    );
    assert.equal(res.status, 200);
    assert.equal(res.text, '{"acknowledged":true,"action":"already_finalized"}');
  }
  assert.equal((await status(id)).status, 'succeeded');
});

test('200 action none: a pending notification leaves the payment initiated', async () => {
  const id = await newQrisPayment(2000);
  const res = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, { orderId: id, status: 'pending', grossAmount: 2000 }),
  );
  assert.equal(res.status, 200);
  assert.equal(res.text, '{"acknowledged":true,"action":"none"}');
  assert.equal((await status(id)).status, 'initiated');
});

test('expire is recorded as failed with the provider text as last_error; cancel as canceled', async () => {
  const a = await actedPayment(3000, 'expire');
  const expired = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, {
      orderId: a,
      status: 'expire',
      grossAmount: 3000,
      statusMessage: 'transaction is expired',
    }),
  );
  assert.equal(expired.text, '{"acknowledged":true}');
  // The provider's text is its status API's (the notification's status_message is unsigned).
  assert.deepEqual(await status(a).then((s) => [s.status, s.last_error]), [
    'failed',
    'Transaction expired: QR not paid within 20 minutes',
  ]);
  const b = await actedPayment(3000, 'cancel');
  const canceled = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, { orderId: b, status: 'cancel', grossAmount: 3000 }),
  );
  assert.equal(canceled.text, '{"acknowledged":true}');
  assert.deepEqual(await status(b).then((s) => [s.status, s.last_error]), ['canceled', '']);
});

test('401 bad signature: wrong key, tampered body, no signature; archived with signature_valid false', async () => {
  const id = await newQrisPayment(4000);
  const wrongKey = idrNotification('SB-Mid-server-wrong', {
    orderId: id,
    status: 'settlement',
    grossAmount: 4000,
  });
  const good = idrNotification(serverKey, { orderId: id, status: 'settlement', grossAmount: 4000 });
  const tampered = good.replace('"4000.00"', '"4.00"');
  const unsigned = JSON.stringify({ ...JSON.parse(good), signature_key: undefined });
  for (const body of [wrongKey, tampered, unsigned, 'not json at all', '']) {
    const res = await postWebhook(gw.url, 'idr_psp', body);
    assert.equal(res.status, 401);
    assert.equal(res.text, 'bad signature');
    assert.match(String(res.contentType), /^text\/plain; charset=utf-8/);
  }
  assert.equal((await status(id)).status, 'initiated');
  const archive = await gw.admin('GET', '/admin/inbound_events');
  const events = archive.json<{
    events: { raw_body: string; signature_valid: boolean; outcome: string }[];
  }>().events;
  for (const body of [wrongKey, tampered, 'not json at all']) {
    const row = events.find((e) => e.raw_body === body);
    assert.ok(row, `archived: ${body.slice(0, 40)}`);
    assert.equal(row.signature_valid, false);
    assert.equal(row.outcome, 'bad_signature');
  }
});

test("a signature valid only under another mode's key never touches the payment", async () => {
  const id = await newQrisPayment(5000);
  const sandboxSigned = idrNotification(SANDBOX_KEY, {
    orderId: id,
    status: 'settlement',
    grossAmount: 5000,
  });
  const res = await postWebhook(gw.url, 'idr_psp', sandboxSigned);
  assert.equal(res.status, 401);
  assert.equal(res.text, 'bad signature');
  assert.equal((await status(id)).status, 'initiated');
});

test('404 unknown payment: a well-formed payment id the gateway does not have', async () => {
  const ghost = randomBytes(16).toString('hex');
  const res = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, { orderId: ghost, status: 'settlement', grossAmount: 100 }),
  );
  assert.equal(res.status, 404);
  assert.equal(res.text, 'unknown payment');
  const archive = await gw.admin('GET', '/admin/inbound_events');
  const row = archive
    .json<{ events: { raw_body: string; signature_valid: boolean; outcome: string }[] }>()
    .events.find((e) => e.raw_body.includes(ghost));
  assert.equal(row?.signature_valid, true);
  assert.equal(row?.outcome, 'unknown_payment');
});

test('400 bad reference: a malformed order id, or none', async () => {
  const res = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, { orderId: 'ORDER-1', status: 'settlement', grossAmount: 100 }),
  );
  assert.equal(res.status, 400);
  assert.equal(res.text, 'bad reference: order_id missing or not a payment id');
  const noOrder = idrNotification(serverKey, {
    orderId: '',
    status: 'settlement',
    grossAmount: 100,
  });
  const res2 = await postWebhook(gw.url, 'idr_psp', noOrder);
  assert.equal(res2.status, 400);
  assert.equal(res2.text, 'bad reference: order_id missing or not a payment id');
});

test('archive: GET /admin/inbound_events?payment_id= lists every event of the payment with its raw body', async () => {
  const id = await newQrisPayment(6000, 'lost_webhook');
  const first = idrNotification(serverKey, { orderId: id, status: 'pending', grossAmount: 6000 });
  const second = idrNotification(serverKey, {
    orderId: id,
    status: 'settlement',
    grossAmount: 6000,
  });
  await postWebhook(gw.url, 'idr_psp', first);
  const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  await silentAction(gw, 'idr', read.json<{ provider_ref: string }>().provider_ref, 'pay');
  await postWebhook(gw.url, 'idr_psp', second);
  const res = await gw.admin('GET', `/admin/inbound_events?payment_id=${id}`);
  assert.equal(res.status, 200);
  const { events } = res.json<{ events: Record<string, unknown>[] }>();
  assert.equal(events.length, 2);
  assert.deepEqual(Object.keys(events[0] ?? {}), [
    'id',
    'provider',
    'received_at',
    'signature_valid',
    'event_type',
    'payment_id',
    'outcome',
    'raw_body',
    'raw_body_bytes',
    'raw_body_sha256',
    'raw_body_truncated',
  ]);
  assert.deepEqual(
    events.map((e) => [
      e.raw_body,
      e.signature_valid,
      e.event_type,
      e.payment_id,
      e.outcome,
      e.provider,
    ]),
    [
      [second, true, 'settlement', id, 'finalized_succeeded', 'idr_psp'],
      [first, true, 'pending', id, 'none', 'idr_psp'],
    ],
  );
});

test('413 body too large on a webhook; unknown provider path 404', async () => {
  const big = await postWebhook(gw.url, 'idr_psp', 'x'.repeat(1024 * 1024 + 1));
  assert.equal(big.status, 413);
  assert.equal(big.text, 'body too large');
  const unknown = await postWebhook(gw.url, 'other_psp', '{}');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'not found');
});
