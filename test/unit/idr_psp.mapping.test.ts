import assert from 'node:assert/strict';
import { test } from 'node:test';
import { snapBaseUrl } from '../../src/providers/idr_psp/client.js';
import { mapTransactionStatus, type StatusFields } from '../../src/providers/idr_psp/mapping.js';
import {
  formatProviderTime,
  parseProviderTime,
  TRANSACTION_STATUSES,
} from '../../src/providers/idr_psp/wire.js';
import type { InboundAction } from '../../src/providers/types.js';

const tx = (over: Partial<StatusFields>): StatusFields => ({
  transaction_status: 'pending',
  status_message: 'provider says so',
  transaction_id: 'tx-1',
  gross_amount: '10000.00',
  currency: 'IDR',
  ...over,
});

const PAID: InboundAction = {
  kind: 'payment',
  outcome: 'succeeded',
  paid: { amountMinor: 10000, currency: 'IDR' },
};

const failed = (errorText: string): InboundAction => ({
  kind: 'payment',
  outcome: 'failed',
  errorText,
});

// The table of docs/providers/idr_psp.md, row by row.
const ROWS: [string, Partial<StatusFields>, InboundAction][] = [
  ['settlement', { transaction_status: 'settlement' }, PAID],
  ['capture, fraud accept', { transaction_status: 'capture', fraud_status: 'accept' }, PAID],
  ['capture, no fraud_status', { transaction_status: 'capture' }, PAID],
  [
    'capture, fraud challenge',
    { transaction_status: 'capture', fraud_status: 'challenge' },
    { kind: 'none' },
  ],
  [
    'capture, fraud deny',
    { transaction_status: 'capture', fraud_status: 'deny', status_message: 'FDS deny' },
    failed('FDS deny'),
  ],
  ['authorize', { transaction_status: 'authorize' }, { kind: 'none' }],
  ['pending', { transaction_status: 'pending' }, { kind: 'none' }],
  [
    'deny',
    { transaction_status: 'deny', status_message: 'Deny by Bank [BCA]' },
    failed('Deny by Bank [BCA]'),
  ],
  [
    'failure',
    { transaction_status: 'failure', status_message: 'Acquirer down' },
    failed('Acquirer down'),
  ],
  ['expire', { transaction_status: 'expire', status_message: 'QR expired' }, failed('QR expired')],
  ['cancel', { transaction_status: 'cancel' }, { kind: 'payment', outcome: 'canceled' }],
  [
    'refund with refunds[]',
    {
      transaction_status: 'refund',
      refund_amount: '10000.00',
      refunds: [
        { refund_chargeback_id: 1, refund_amount: '4000.00', refund_key: 'rk-1' },
        { refund_chargeback_id: 2, refund_amount: '10000.00', refund_key: 'rk-2' },
      ],
    },
    { kind: 'refund', outcome: 'succeeded', providerRefundRef: 'rk-2', amountMinor: 10000 },
  ],
  [
    'partial_refund without refund_key',
    {
      transaction_status: 'partial_refund',
      refunds: [{ refund_chargeback_id: 77, refund_amount: '2500.00' }],
    },
    { kind: 'refund', outcome: 'succeeded', providerRefundRef: '77', amountMinor: 2500 },
  ],
  [
    'refund with only refund_amount',
    { transaction_status: 'refund', refund_amount: '5000.00' },
    { kind: 'refund', outcome: 'succeeded', providerRefundRef: 'tx-1', amountMinor: 5000 },
  ],
  [
    'settlement whose last refund failed (refund_fail notification)',
    {
      transaction_status: 'settlement',
      status_message: "Refund declined by the buyer's wallet",
      refunds: [
        {
          refund_chargeback_id: 9,
          refund_amount: '10000.00',
          refund_key: 'rk-9',
          status: 'failed',
        },
      ],
    },
    {
      kind: 'refund',
      outcome: 'failed',
      providerRefundRef: 'rk-9',
      amountMinor: 10000,
      errorText: "Refund declined by the buyer's wallet",
    },
  ],
  [
    'settlement with only completed refunds listed',
    {
      transaction_status: 'settlement',
      refunds: [{ refund_chargeback_id: 3, refund_amount: '100.00', refund_key: 'rk-3' }],
    },
    PAID,
  ],
  [
    'partial_refund whose last refund failed: its own amount, not the total refunded',
    {
      transaction_status: 'partial_refund',
      status_message: 'Wallet account closed',
      refund_amount: '4000.00',
      refunds: [
        { refund_chargeback_id: 1, refund_amount: '4000.00', refund_key: 'rk-1' },
        { refund_chargeback_id: 2, refund_amount: '3000.00', refund_key: 'rk-2', status: 'failed' },
      ],
    },
    {
      kind: 'refund',
      outcome: 'failed',
      providerRefundRef: 'rk-2',
      amountMinor: 3000,
      errorText: 'Wallet account closed',
    },
  ],
  // D16: money the bank took back, a dispute lost at once; a full one without an amount took
  // what the refunds left, a partial one without an amount confirms nothing.
  [
    'chargeback',
    { transaction_status: 'chargeback' },
    {
      kind: 'dispute',
      providerRef: 'tx-1',
      status: 'lost',
      amountMinor: 10000,
      currency: 'IDR',
      reason: 'provider says so',
      evidenceDueBy: null,
      openedAt: null,
    },
  ],
  [
    'chargeback after a partial refund',
    { transaction_status: 'chargeback', refund_amount: '4000.00' },
    {
      kind: 'dispute',
      providerRef: 'tx-1',
      status: 'lost',
      amountMinor: 6000,
      currency: 'IDR',
      reason: 'provider says so',
      evidenceDueBy: null,
      openedAt: null,
    },
  ],
  [
    'chargeback after a partial chargeback: the total of the chargeback entries',
    {
      transaction_status: 'chargeback',
      refunds: [
        { refund_chargeback_id: 4, refund_amount: '1500.00', refund_key: 'rk-4' },
        { refund_chargeback_id: 5, refund_amount: '2500.00', created_at: '2026-11-22 19:00:00' },
        { refund_chargeback_id: 6, refund_amount: '6000.00', created_at: '2026-11-23 08:00:00' },
      ],
    },
    {
      kind: 'dispute',
      providerRef: 'tx-1',
      status: 'lost',
      amountMinor: 8500,
      currency: 'IDR',
      reason: 'provider says so',
      evidenceDueBy: null,
      openedAt: new Date('2026-11-22T12:00:00Z'),
    },
  ],
  [
    'partial_chargeback: the keyless refunds[] entry is the chargeback, with its time',
    {
      transaction_status: 'partial_chargeback',
      refunds: [
        { refund_chargeback_id: 5, refund_amount: '2500.00', created_at: '2026-11-22 19:00:00' },
      ],
    },
    {
      kind: 'dispute',
      providerRef: 'tx-1',
      status: 'lost',
      amountMinor: 2500,
      currency: 'IDR',
      reason: 'provider says so',
      evidenceDueBy: null,
      openedAt: new Date('2026-11-22T12:00:00Z'),
    },
  ],
  [
    'partial_chargeback without an amount',
    { transaction_status: 'partial_chargeback' },
    { kind: 'none' },
  ],
  ['unknown status', { transaction_status: 'something_new' }, { kind: 'none' }],
];

for (const [name, fields, expected] of ROWS) {
  test(`mapping: ${name}`, () => {
    assert.deepEqual(mapTransactionStatus(tx(fields)), expected);
  });
}

test('every documented transaction_status has a row', () => {
  const covered = new Set(ROWS.map(([, f]) => f.transaction_status));
  for (const s of TRANSACTION_STATUSES) assert.ok(covered.has(s), s);
});

test('a refund amount that is not whole rupiah is left out, not rounded', () => {
  assert.deepEqual(
    mapTransactionStatus(tx({ transaction_status: 'refund', refund_amount: '10.50' })),
    { kind: 'refund', outcome: 'succeeded', providerRefundRef: 'tx-1' },
  );
});

test('Snap is served from app.* when the Core API base is the provider own host', () => {
  assert.equal(snapBaseUrl('https://api.sandbox.midtrans.com'), 'https://app.sandbox.midtrans.com');
  assert.equal(snapBaseUrl('https://api.midtrans.com'), 'https://app.midtrans.com');
  assert.equal(
    snapBaseUrl('http://127.0.0.1:8080/sim/idr_psp'),
    'http://127.0.0.1:8080/sim/idr_psp',
  );
  assert.equal(
    snapBaseUrl('https://api.midtrans.com.evil.example'),
    'https://api.midtrans.com.evil.example',
  );
});

test('provider times are Asia/Jakarta (UTC+7) and round-trip', () => {
  const ms = Date.UTC(2025, 0, 31, 20, 5, 9);
  assert.equal(formatProviderTime(ms), '2025-02-01 03:05:09');
  assert.equal(parseProviderTime('2025-02-01 03:05:09')?.getTime(), ms);
  assert.equal(parseProviderTime('2025-02-01T03:05:09Z'), null);
});
