import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { idrPsp } from '../../src/providers/idr_psp/index.js';
import { BadReference } from '../../src/providers/types.js';

const SERVER_KEY = 'SB-Mid-server-TEST0123456789abcdefABCD';
const endpoint = {
  baseUrl: 'http://unused',
  credentials: { serverKey: SERVER_KEY },
  webhookSecret: SERVER_KEY,
};
const ORDER_ID = '0123456789abcdef0123456789abcdef';

/** Independent of the adapter: SHA-512 hex of order_id + status_code + gross_amount + key. */
function sign(orderId: string, statusCode: string, grossAmount: string, key = SERVER_KEY): string {
  return createHash('sha512')
    .update(orderId + statusCode + grossAmount + key)
    .digest('hex');
}

function notification(over: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = {
    transaction_time: '2025-01-02 10:11:12',
    transaction_status: 'settlement',
    transaction_id: '513f1f01-c9da-474c-9fc9-d5c64364b709',
    status_message: 'midtrans payment notification',
    status_code: '200',
    payment_type: 'qris',
    order_id: ORDER_ID,
    merchant_id: 'G123456789',
    gross_amount: '10000.00',
    fraud_status: 'accept',
    currency: 'IDR',
    ...over,
  };
  if (!('signature_key' in over)) {
    base.signature_key = sign(
      String(base.order_id),
      String(base.status_code),
      String(base.gross_amount),
    );
  }
  return base;
}

const raw = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const verify = (v: unknown, ep = endpoint) => idrPsp.verifyWebhook(ep, {}, raw(v));

test('a correctly signed notification verifies', async () => {
  assert.equal(await verify(notification()), true);
});

test('a fixed vector: signature over "order_id status_code gross_amount key" concatenated', async () => {
  const key = 'SB-Mid-server-fixed';
  const body = {
    order_id: ORDER_ID,
    status_code: '200',
    gross_amount: '10000.00',
    transaction_id: 't-1',
    transaction_status: 'settlement',
    signature_key: createHash('sha512').update(`${ORDER_ID}20010000.00${key}`).digest('hex'),
  };
  assert.equal(await verify(body, { ...endpoint, webhookSecret: key }), true);
  assert.equal(await verify(body), false);
});

test('an upper-case hex signature still verifies', async () => {
  const n = notification();
  n.signature_key = String(n.signature_key).toUpperCase();
  assert.equal(await verify(n), true);
});

test('tampering with any signed field breaks the signature', async () => {
  const good = notification();
  for (const [field, value] of [
    ['order_id', 'ffffffffffffffffffffffffffffffff'],
    ['status_code', '201'],
    ['gross_amount', '10000'],
    ['gross_amount', '1000000.00'],
  ] as const) {
    assert.equal(await verify({ ...good, [field]: value }), false, field);
  }
});

test('a flipped signature digit, a wrong key or a truncated signature does not verify', async () => {
  const good = notification();
  const sig = String(good.signature_key);
  const flipped = (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1);
  assert.equal(await verify({ ...good, signature_key: flipped }), false);
  assert.equal(await verify({ ...good, signature_key: sig.slice(0, 64) }), false);
  assert.equal(await verify({ ...good, signature_key: '' }), false);
  assert.equal(await verify(good, { ...endpoint, webhookSecret: 'SB-Mid-server-other' }), false);
  assert.equal(await verify(good, { ...endpoint, webhookSecret: '' }), false);
});

test('a malformed body is not verified and never throws', async () => {
  for (const body of ['', 'not json', '[]', 'null', '42', '{"order_id":1}']) {
    assert.equal(await verify(body), false, body);
  }
  const n = notification();
  delete n.signature_key;
  assert.equal(await verify(n), false);
  assert.equal(await verify({ ...notification(), status_code: 200 }), false);
});

test('parseWebhook names the payment by order_id and the transaction by transaction_id', () => {
  const ev = idrPsp.parseWebhook({}, raw(notification()));
  assert.deepEqual(ev, {
    eventType: 'settlement',
    paymentId: ORDER_ID,
    providerRef: '513f1f01-c9da-474c-9fc9-d5c64364b709',
    action: {
      kind: 'payment',
      outcome: 'succeeded',
      paid: { amountMinor: 10000, currency: 'IDR' },
    },
  });
});

test('parseWebhook puts the provider status_message verbatim into errorText', () => {
  const ev = idrPsp.parseWebhook(
    {},
    raw(
      notification({ transaction_status: 'expire', status_code: '202', status_message: 'QR gone' }),
    ),
  );
  assert.equal(ev.eventType, 'expire');
  assert.deepEqual(ev.action, { kind: 'payment', outcome: 'failed', errorText: 'QR gone' });
});

test('parseWebhook throws BadReference when the payment cannot be named', () => {
  const cases: [string, unknown][] = [
    ['not JSON', 'garbage'],
    ['an array', []],
    ['order_id missing', { ...notification(), order_id: undefined }],
    ['order_id not a string', notification({ order_id: 12345 })],
    ['order_id not a payment id', notification({ order_id: 'ORDER-101' })],
    ['order_id upper-case hex', notification({ order_id: ORDER_ID.toUpperCase() })],
    ['transaction_id missing', { ...notification(), transaction_id: undefined }],
    ['transaction_id empty', notification({ transaction_id: '' })],
  ];
  for (const [name, body] of cases) {
    assert.throws(() => idrPsp.parseWebhook({}, raw(body)), BadReference, name);
  }
});

test('an unknown transaction_status is archived by name and changes nothing', () => {
  const ev = idrPsp.parseWebhook({}, raw(notification({ transaction_status: 'brand_new_state' })));
  assert.equal(ev.eventType, 'brand_new_state');
  assert.deepEqual(ev.action, { kind: 'none' });
});
