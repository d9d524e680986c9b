import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mapTransactionStatus } from '../../src/providers/idr_psp/mapping.js';
import { idrPsp } from '../../src/providers/idr_psp/index.js';
import type { TransactionWire } from '../../src/providers/idr_psp/wire.js';

// Midtrans's own documented samples (test/fixtures/idr_psp, each naming its page), read by
// the adapter: notifications verify once signed with our key and map to the canonical
// outcome; charge and refund answers map as the status path reads them.

const DIR = fileURLToPath(new URL('../fixtures/idr_psp/', import.meta.url));
const SERVER_KEY = 'SB-Mid-server-FIXTURE0123456789abcdef';
const endpoint = {
  baseUrl: 'http://unused',
  credentials: { serverKey: SERVER_KEY },
  webhookSecret: SERVER_KEY,
};

function fixture(name: string): Record<string, unknown> {
  const body = JSON.parse(readFileSync(DIR + name, 'utf8')) as Record<string, unknown>;
  assert.match(String(body._source), /^https:\/\//, `${name} names its source`);
  return body;
}

/** The notification signed by Midtrans's rule (SHA-512 of order_id, status_code, gross_amount, key) with our key. */
function signedWithOurKey(doc: Record<string, unknown>): Buffer {
  const signature = createHash('sha512')
    .update(
      `${String(doc.order_id)}${String(doc.status_code)}${String(doc.gross_amount)}${SERVER_KEY}`,
    )
    .digest('hex');
  return Buffer.from(JSON.stringify({ ...doc, signature_key: signature }));
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

test('every documented settlement notification verifies with the signature rule and maps to succeeded', async () => {
  const notifications = files.filter(
    (f) => f.startsWith('notification.') && f.endsWith('.settlement.json'),
  );
  assert.equal(notifications.length, 6);
  for (const name of notifications) {
    const doc = fixture(name);
    // The doc's signature was made with Midtrans's key, not ours: refused as it stands.
    assert.equal(await idrPsp.verifyWebhook(endpoint, {}, Buffer.from(JSON.stringify(doc))), false);
    const raw = signedWithOurKey(doc);
    assert.equal(await idrPsp.verifyWebhook(endpoint, {}, raw), true, name);
    const event = idrPsp.parseWebhook({}, raw);
    assert.deepEqual(
      event,
      {
        eventType: 'settlement',
        paymentId: doc.order_id,
        providerRef: doc.transaction_id,
        action: {
          kind: 'payment',
          outcome: 'succeeded',
          paid: { amountMinor: Number(doc.gross_amount), currency: doc.currency ?? 'IDR' },
        },
      },
      name,
    );
  }
});

test('documented charge answers of every bank channel are pending: nothing changes yet', () => {
  const charges = files.filter((f) => f.startsWith('charge.'));
  assert.deepEqual(charges.sort(), [
    'charge.bca_va.json',
    'charge.bni_va.json',
    'charge.bri_va.json',
    'charge.echannel.json',
    'charge.permata_va.json',
  ]);
  for (const name of charges) {
    const doc = fixture(name) as unknown as TransactionWire;
    assert.equal(doc.status_code, '201');
    assert.deepEqual(mapTransactionStatus(doc), { kind: 'none' }, name);
    // Each channel names its pay-in details in its own shape.
    if (doc.payment_type === 'echannel') assert.ok(doc.bill_key && doc.biller_code, name);
    else if (name.includes('permata')) assert.ok(doc.permata_va_number, name);
    else assert.equal(doc.va_numbers?.length, 1, name);
  }
});

test('the documented refund answer maps to a succeeded refund under its refund_key', () => {
  const doc = fixture('refund.response.json') as unknown as TransactionWire;
  assert.deepEqual(
    mapTransactionStatus({
      ...doc,
      refunds: [{ refund_key: 'reference1', refund_amount: '10000.00', refund_chargeback_id: 1 }],
    }),
    {
      kind: 'refund',
      outcome: 'succeeded',
      providerRefundRef: 'reference1',
      amountMinor: 10000,
    },
  );
  // Without a refunds list (the answer has none), the refund is named by the transaction.
  assert.deepEqual(mapTransactionStatus(doc), {
    kind: 'refund',
    outcome: 'succeeded',
    providerRefundRef: doc.transaction_id,
    amountMinor: 10000,
  });
});

test('the documented expire notification verifies and fails the payment; the expire answer maps the same', async () => {
  const doc = fixture('notification.permata_va.expire.json');
  const raw = signedWithOurKey(doc);
  assert.equal(await idrPsp.verifyWebhook(endpoint, {}, raw), true);
  assert.deepEqual(idrPsp.parseWebhook({}, raw), {
    eventType: 'expire',
    paymentId: doc.order_id,
    providerRef: doc.transaction_id,
    action: { kind: 'payment', outcome: 'failed', errorText: 'midtrans payment notification' },
  });
  const answer = fixture('expire.response.json') as unknown as TransactionWire;
  assert.deepEqual(mapTransactionStatus(answer), {
    kind: 'payment',
    outcome: 'failed',
    errorText: 'Success, transaction has expired',
  });
});
