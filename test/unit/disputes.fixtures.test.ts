import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mapTransactionStatus } from '../../src/providers/idr_psp/mapping.js';
import { disputeAction } from '../../src/providers/wallet_psp/mapping.js';
import { walletPsp } from '../../src/providers/wallet_psp/index.js';
import { idrPsp } from '../../src/providers/idr_psp/index.js';
import type { WpDispute } from '../../src/providers/wallet_psp/disputeWire.js';
import { paypalSchemas } from '../helpers/paypalSdk.js';

// The providers' documented dispute and chargeback shapes (test/fixtures, each naming its
// source and what was adapted), read by the adapters (D16).

function fixture(path: string, source: RegExp): Record<string, unknown> {
  const file = fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));
  const body = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  assert.match(String(body._source), source, `${path} names its source`);
  delete body._source;
  delete body._adapted;
  return body;
}

const PAYPAL = /^https:\/\/developer\.paypal\.com\//;

test('idr_psp: a chargeback notification is a claimed dispute, lost at once', () => {
  const body = fixture(
    'idr_psp/notification.qris.chargeback.json',
    /^https:\/\/docs\.midtrans\.com\//,
  );
  const parsed = idrPsp.parseWebhook({}, Buffer.from(JSON.stringify(body)));
  const tx = {
    transaction_status: 'chargeback',
    gross_amount: '5539.00',
    status_message: 'midtrans chargeback notification',
    transaction_id: '513f1f01-c9da-474c-9fc9-d5c64364b709',
    currency: 'IDR',
  };
  assert.equal(parsed.paymentId, '0a1b2c3d4e5f60718293a4b5c6d7e802');
  assert.deepEqual(parsed.action, {
    kind: 'dispute',
    providerRef: '513f1f01-c9da-474c-9fc9-d5c64364b709',
    status: 'lost',
    amountMinor: 5539,
    currency: 'IDR',
    reason: 'midtrans chargeback notification',
    evidenceDueBy: null,
    openedAt: new Date('2021-07-01T03:00:00Z'),
  });
  // Without the chargeback entry a full chargeback took what was left: the whole 5539.
  const withoutEntry = { ...body };
  delete withoutEntry.refunds;
  delete withoutEntry.refund_amount;
  const again = idrPsp.parseWebhook({}, Buffer.from(JSON.stringify(withoutEntry)));
  assert.deepEqual(again.action, { ...parsed.action, openedAt: null });
  const partial = { ...tx, transaction_status: 'partial_chargeback' };
  assert.deepEqual(mapTransactionStatus(partial), { kind: 'none' });
});

test('wallet_psp: CUSTOMER.DISPUTE.CREATED names the payment by the disputed transaction and claims an open dispute', () => {
  const body = fixture('wallet_psp/webhook.customer_dispute_created.json', PAYPAL);
  const parsed = walletPsp.parseWebhook({}, Buffer.from(JSON.stringify(body)));
  assert.deepEqual(parsed, {
    eventType: 'CUSTOMER.DISPUTE.CREATED',
    paymentId: '0a1b2c3d4e5f60718293a4b5c6d7e901',
    action: {
      kind: 'dispute',
      providerRef: 'PP-000-042-663-135',
      status: 'open',
      amountMinor: 251,
      currency: 'USD',
      reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
      evidenceDueBy: new Date('2018-07-01T13:35:44.000Z'),
      openedAt: new Date('2018-06-21T13:35:44.000Z'),
    },
  });
});

test('wallet_psp: a dispute case on a payment made elsewhere is acknowledged, not refused', () => {
  const body = fixture('wallet_psp/webhook.customer_dispute_created.json', PAYPAL);
  const resource = body.resource as WpDispute;
  delete resource.disputed_transactions?.[0]?.custom;
  const parsed = walletPsp.parseWebhook({}, Buffer.from(JSON.stringify(body)));
  assert.deepEqual(parsed, { eventType: 'CUSTOMER.DISPUTE.CREATED', action: { kind: 'none' } });
});

test('wallet_psp: the documented resolved dispute (buyer favour) is lost', () => {
  const d = fixture(
    'wallet_psp/dispute.resolved_buyer_favour.json',
    PAYPAL,
  ) as unknown as WpDispute;
  assert.deepEqual(disputeAction(d), {
    kind: 'dispute',
    providerRef: 'PP-D-61888',
    status: 'lost',
    amountMinor: 10000,
    currency: 'USD',
    reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
    evidenceDueBy: null,
    openedAt: new Date('2022-02-18T19:21:18.000Z'),
  });
  const won = { ...d, dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' } };
  assert.equal(disputeAction(won)?.status, 'won');
});

test('wallet_psp: PAYMENT.CAPTURE.REVERSED, accepted by the SDK capture schema, is a dispute lost at once', async () => {
  const body = fixture('wallet_psp/webhook.payment_capture_reversed.json', PAYPAL);
  assert.deepEqual((await paypalSchemas())('capture', body.resource), []);
  const parsed = walletPsp.parseWebhook({}, Buffer.from(JSON.stringify(body)));
  assert.deepEqual(parsed, {
    eventType: 'PAYMENT.CAPTURE.REVERSED',
    paymentId: '0a1b2c3d4e5f60718293a4b5c6d7e901',
    providerRef: '5O190127TN364715T',
    action: {
      kind: 'dispute',
      providerRef: '27M47624FP291604U',
      status: 'lost',
      amountMinor: 251,
      currency: 'USD',
      reason: 'CHARGEBACK',
      evidenceDueBy: null,
      openedAt: new Date('2019-02-20T09:59:58Z'),
      withoutCase: true,
    },
  });
});
