import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { idrPsp } from '../../helpers/drivers/idr_psp.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrTestServerKey } from '../../helpers/idrNotify.js';
import {
  assertTransactionFields,
  midtransClients,
  midtransError,
  type MidtransCoreApi,
  type MidtransSnap,
} from '../../helpers/midtrans.js';

// The idr_psp simulator seen from Midtrans's side of the wire: midtrans-client, Midtrans's
// own Node library, makes every call (Snap and Core API charges, status by order_id and by
// transaction_id, cancel, expire, refund, online direct refund, notification handling), and
// every answer carries the fields Midtrans documents in their formats.

let gw: TestGateway;
let core: MidtransCoreApi;
let snap: MidtransSnap;
let serverKey: string;

before(async () => {
  gw = await startTestGateway();
  serverKey = idrTestServerKey(gw.config.masterKey);
  ({ core, snap } = midtransClients(`${gw.url}/sim/idr_psp`, serverKey));
});
after(async () => {
  await gw?.stop();
});

/** A documented Midtrans sample (test/fixtures/idr_psp), without its source notes. */
function documented(name: string): Record<string, unknown> {
  const url = new URL(`../../fixtures/idr_psp/${name}`, import.meta.url);
  const body = JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
  delete body._source;
  delete body._adapted;
  return body;
}

const orderId = () => randomBytes(16).toString('hex');
const customer = { email: 'buyer@example.com', first_name: 'Budi' };

async function simAction(ref: string, action: string, query = '') {
  const res = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/${action}${query}`, {
    method: 'POST',
  });
  return { status: res.status, text: await res.text() };
}

const signature = (b: Record<string, unknown>) =>
  createHash('sha512')
    .update(`${String(b.order_id)}${String(b.status_code)}${String(b.gross_amount)}${serverKey}`)
    .digest('hex');

test('Core API charges for every bank transfer, echannel and QRIS answer as Midtrans does', async () => {
  const cases = [
    { body: { payment_type: 'bank_transfer', bank_transfer: { bank: 'bca' } }, bank: 'bca' },
    { body: { payment_type: 'bank_transfer', bank_transfer: { bank: 'bni' } }, bank: 'bni' },
    { body: { payment_type: 'bank_transfer', bank_transfer: { bank: 'bri' } }, bank: 'bri' },
    {
      body: { payment_type: 'bank_transfer', bank_transfer: { bank: 'permata' } },
      bank: 'permata',
    },
    {
      body: {
        payment_type: 'echannel',
        echannel: { bill_info1: 'Payment:', bill_info2: 'Online' },
      },
      bank: 'mandiri',
    },
    { body: { payment_type: 'qris', qris: { acquirer: 'gopay' } }, bank: null },
  ];
  for (const c of cases) {
    const id = orderId();
    const res = await core.charge({
      ...c.body,
      transaction_details: { order_id: id, gross_amount: 10000 },
      customer_details: customer,
    });
    assertTransactionFields(res, { orderId: id, gross: 10000 });
    assert.equal(res.status_code, '201', JSON.stringify(res));
    assert.equal(res.transaction_status, 'pending');
    assert.equal(res.payment_type, c.body.payment_type);
    if (c.bank === 'permata') {
      assert.match(String(res.permata_va_number), /^\d{16}$/);
      assert.equal(res.va_numbers, undefined);
    } else if (c.bank === 'mandiri') {
      assert.match(String(res.bill_key), /^\d{12}$/);
      assert.equal(res.biller_code, '70012');
    } else if (c.bank) {
      const vas = res.va_numbers as { bank: string; va_number: string }[];
      assert.equal(vas.length, 1);
      assert.equal(vas[0]?.bank, c.bank);
      assert.match(vas[0]?.va_number ?? '', /^\d{11,16}$/);
    } else {
      assert.equal(typeof res.qr_string, 'string');
      assert.equal((res.actions as { name: string }[])[0]?.name, 'generate-qr-code');
    }
    // Every field of Midtrans's documented answer for this channel is there.
    const doc =
      c.bank && documented(`charge.${c.bank === 'mandiri' ? 'echannel' : `${c.bank}_va`}.json`);
    if (doc) for (const k of Object.keys(doc)) assert.ok(k in res, `charge ${c.bank}: ${k}`);
    // The status API knows it by order_id and by transaction_id alike, signed.
    const byOrder = await core.transaction.status(id);
    const byTx = await core.transaction.status(String(res.transaction_id));
    assert.deepEqual(byTx, byOrder);
    assertTransactionFields(byOrder, { orderId: id, gross: 10000 });
    assert.equal(byOrder.signature_key, signature(byOrder));
  }
});

test('Snap with one, several or no enabled_payments; status is 404 until the buyer chooses', async () => {
  const one = orderId();
  const single = await snap.createTransaction({
    transaction_details: { order_id: one, gross_amount: 25000 },
    enabled_payments: ['bca_va'],
    customer_details: customer,
  });
  assert.match(single.token, /^[0-9a-f-]{36}$/);
  assert.ok(single.redirect_url.endsWith(`/snap/v2/vtweb/${single.token}`));

  for (const enabled of [undefined, ['other_qris', 'permata_va', 'echannel']]) {
    const id = orderId();
    const { token } = await snap.createTransaction({
      transaction_details: { order_id: id, gross_amount: 25000 },
      ...(enabled ? { enabled_payments: enabled } : {}),
      customer_details: customer,
      page_expiry: { duration: 20, unit: 'minutes' },
    });
    // No channel chosen: Midtrans has no transaction, by order_id or otherwise.
    const err = await midtransError(core.transaction.status(id));
    assert.equal(err.httpStatusCode, 404);
    assert.equal((err.ApiResponse as { status_code: string }).status_code, '404');
    assert.equal((await midtransError(core.transaction.cancel(id))).httpStatusCode, 404);
    assert.equal((await midtransError(core.transaction.expire(id))).httpStatusCode, 404);
    const page = await fetch(`${gw.url}/sim/idr_psp/snap/v2/vtweb/${token}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Methods offered/);

    const refused = await simAction(token, 'choose', '?method=bri_va');
    assert.equal(refused.status, enabled ? 400 : 200, refused.text);
    if (!enabled) continue;
    const chosen = await simAction(token, 'choose', '?method=permata_va');
    assert.equal(chosen.status, 200, chosen.text);
    const status = await core.transaction.status(id);
    assertTransactionFields(status, { orderId: id, gross: 25000 });
    assert.equal(status.transaction_status, 'pending');
    assert.equal(status.payment_type, 'bank_transfer');
    assert.match(String(status.permata_va_number), /^\d{16}$/);
  }
});

test('cancel (the library sends the JSON body null) and expire, by order_id and transaction_id', async () => {
  const charge = (id: string) =>
    core.charge({
      payment_type: 'bank_transfer',
      bank_transfer: { bank: 'bni' },
      transaction_details: { order_id: id, gross_amount: 15000 },
      customer_details: customer,
    });
  const a = orderId();
  await charge(a);
  const canceled = await core.transaction.cancel(a);
  assertTransactionFields(canceled, { orderId: a, gross: 15000, merchantId: false });
  assert.equal(canceled.status_code, '200');
  assert.equal(canceled.transaction_status, 'cancel');

  const b = orderId();
  const created = await charge(b);
  const expired = await core.transaction.expire(String(created.transaction_id));
  assertTransactionFields(expired, { orderId: b, gross: 15000, merchantId: false });
  assert.equal(expired.status_code, '407');
  assert.equal(expired.transaction_status, 'expire');
  for (const k of Object.keys(documented('expire.response.json'))) {
    assert.ok(k in expired, `expire answer: ${k}`);
  }
  const after = await core.transaction.status(b);
  assert.equal(after.transaction_status, 'expire');
  assert.equal(after.status_code, '407');
  // An expired transaction can be neither expired nor canceled again.
  const again = await midtransError(core.transaction.expire(b));
  assert.equal(again.httpStatusCode, 412);
  assert.equal(
    (again.ApiResponse as { status_message: string }).status_message,
    'Merchant cannot modify the status of the transaction',
  );
  assert.equal((await midtransError(core.transaction.cancel(b))).httpStatusCode, 412);
});

test("a paid transaction's status has every field of the documented notification of its channel", async () => {
  for (const [channel, body] of [
    ['bca_va', { payment_type: 'bank_transfer', bank_transfer: { bank: 'bca' } }],
    ['bni_va', { payment_type: 'bank_transfer', bank_transfer: { bank: 'bni' } }],
    ['bri_va', { payment_type: 'bank_transfer', bank_transfer: { bank: 'bri' } }],
    ['permata_va', { payment_type: 'bank_transfer', bank_transfer: { bank: 'permata' } }],
    ['echannel', { payment_type: 'echannel', echannel: { bill_info1: 'a', bill_info2: 'b' } }],
    ['qris', { payment_type: 'qris' }],
  ] as const) {
    const id = orderId();
    const created = await core.charge({
      ...body,
      transaction_details: { order_id: id, gross_amount: 12000 },
      customer_details: customer,
    });
    assert.equal((await simAction(String(created.transaction_id), 'pay')).status, 200);
    const status = await core.transaction.status(id);
    const doc = documented(`notification.${channel}.settlement.json`);
    for (const k of Object.keys(doc)) assert.ok(k in status, `${channel}: ${k}`);
  }
});

test('refund and online direct refund of a settled transaction', async () => {
  for (const op of ['refund', 'refundDirect'] as const) {
    const id = orderId();
    const created = await core.charge({
      payment_type: 'echannel',
      echannel: { bill_info1: 'Payment:', bill_info2: 'Online' },
      transaction_details: { order_id: id, gross_amount: 40000 },
      customer_details: customer,
    });
    const paid = await simAction(String(created.transaction_id), 'pay');
    assert.equal(paid.status, 200, paid.text);
    const res = await core.transaction[op](id, {
      refund_key: `rk-${op}-${id.slice(0, 8)}`,
      amount: 15000,
      reason: 'sdk test',
    });
    assert.equal(res.status_code, '200', JSON.stringify(res));
    assert.equal(res.refund_amount, '15000.00');
    assert.equal(res.refund_key, `rk-${op}-${id.slice(0, 8)}`);
    assert.equal(res.transaction_status, 'partial_refund');
    assert.equal(typeof res.refund_chargeback_id, 'number');
    const status = await core.transaction.status(id);
    assert.equal(status.refund_amount, '15000.00');
    assert.equal(status.signature_key, signature(status));
  }
});

test('a notification signed as Midtrans signs it: the adapter verifies it and the library checks its status', async () => {
  const id = orderId();
  const created = await core.charge({
    payment_type: 'bank_transfer',
    bank_transfer: { bank: 'bca' },
    transaction_details: { order_id: id, gross_amount: 30000 },
    customer_details: customer,
  });
  assert.equal((await simAction(String(created.transaction_id), 'pay')).status, 200);
  const status = await core.transaction.status(id);
  const unsigned: Record<string, unknown> = { ...status };
  delete unsigned.signature_key;
  const notification = { ...unsigned, signature_key: signature(unsigned) };
  const raw = Buffer.from(JSON.stringify(notification));
  const endpoint = gw.running.gw.providers.endpoint('idr_psp', 'test');
  assert.ok(endpoint);
  assert.equal(await idrPsp.verifyWebhook(endpoint, {}, raw), true);
  const tampered = Buffer.from(JSON.stringify({ ...notification, gross_amount: '1.00' }));
  assert.equal(await idrPsp.verifyWebhook(endpoint, {}, tampered), false);
  assert.deepEqual(idrPsp.parseWebhook({}, raw).action, {
    kind: 'payment',
    outcome: 'succeeded',
    paid: { amountMinor: 30000, currency: 'IDR' },
  });
  // The library's notification handler asks the status API by the notification's transaction_id.
  const checked = await core.transaction.notification(JSON.stringify(notification));
  assert.equal(checked.transaction_status, 'settlement');
  assert.equal(checked.order_id, id);
});

test('the simulator refuses what Midtrans refuses: unknown channels, a second channel, a lapsed page', async () => {
  const bad = await midtransError(
    snap.createTransaction({
      transaction_details: { order_id: orderId(), gross_amount: 10000 },
      enabled_payments: ['bca_va', 'credit_card'],
      customer_details: customer,
    }),
  );
  assert.equal(bad.httpStatusCode, 400);
  assert.deepEqual(bad.ApiResponse, {
    error_messages: [
      'enabled_payments must name channels among other_qris, bca_va, bni_va, bri_va, permata_va, echannel',
    ],
  });
  const badBank = await midtransError(
    core.charge({
      payment_type: 'bank_transfer',
      bank_transfer: { bank: 'mandiri' },
      transaction_details: { order_id: orderId(), gross_amount: 10000 },
      customer_details: customer,
    }),
  );
  assert.equal(badBank.httpStatusCode, 400);
  assert.deepEqual((badBank.ApiResponse as { validation_messages: string[] }).validation_messages, [
    'bank_transfer.bank must be one of bca, bni, bri, permata',
  ]);

  const { token } = await snap.createTransaction({
    transaction_details: { order_id: orderId(), gross_amount: 10000 },
    enabled_payments: ['permata_va', 'echannel'],
    customer_details: customer,
  });
  const notOffered = await simAction(token, 'choose', '?method=bca_va');
  assert.deepEqual(notOffered, { status: 400, text: 'method must be one of permata_va, echannel' });
  assert.equal((await simAction(token, 'choose', '?method=echannel')).status, 200);
  const second = await simAction(token, 'choose', '?method=permata_va');
  assert.deepEqual(second, { status: 409, text: 'channel already chosen: echannel' });
  assert.deepEqual(await simAction('no-such-token', 'choose'), {
    status: 404,
    text: 'unknown reference',
  });

  // A page nobody chose on lapses with its expiry: no transaction is ever made.
  const clock = gw.simClock;
  const lapsed = await snap.createTransaction({
    transaction_details: { order_id: orderId(), gross_amount: 10000 },
    enabled_payments: ['other_qris', 'bri_va'],
    customer_details: customer,
  });
  clock.advance(25 * 3_600_000);
  try {
    assert.deepEqual(await simAction(lapsed.token, 'pay'), {
      status: 409,
      text: 'the payment page has expired',
    });
  } finally {
    clock.reset();
  }
});
