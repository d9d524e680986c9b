import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  paymentEventBody,
  paymentEventType,
  refundEventBody,
  subscriptionEventBody,
} from '../../src/domain/events.js';

// Outbound bodies, field for field (docs/api.md#event-bodies): payments, refunds, subscriptions.

const at = new Date('2026-11-22T10:11:12.345Z');

test('payment event: docs/api.md#event-bodies fields in order, amount named amount, empty provider_ref when unknown', () => {
  const body = JSON.parse(
    paymentEventBody(
      paymentEventType('failed'),
      {
        id: 'a'.repeat(32),
        status: 'failed',
        amount_minor: 990,
        currency: 'USD',
        method: 'card_psp',
        provider: 'card_psp',
        provider_ref: null,
        metadata: { k: 'v' },
      },
      at,
    ),
  );
  assert.deepEqual(body, {
    event: 'payment.failed',
    payment_id: 'a'.repeat(32),
    status: 'failed',
    amount: 990,
    currency: 'USD',
    method: 'card_psp',
    provider: 'card_psp',
    provider_ref: '',
    timestamp: '2026-11-22T10:11:12.345Z',
    metadata: { k: 'v' },
  });
  assert.deepEqual(Object.keys(body), [
    'event',
    'payment_id',
    'status',
    'amount',
    'currency',
    'method',
    'provider',
    'provider_ref',
    'timestamp',
    'metadata',
  ]);
});

test('refund event: docs/api.md#event-bodies fields in order, metadata of the payment', () => {
  const body = JSON.parse(
    refundEventBody(
      'refund.succeeded',
      {
        id: 'b'.repeat(32),
        payment_id: 'a'.repeat(32),
        status: 'succeeded',
        amount_minor: 500,
        currency: 'EUR',
        provider: 'wallet_psp',
        provider_ref: 'R-1',
        reason: 'broken',
      },
      { order: 1 },
      at,
    ),
  );
  assert.deepEqual(Object.keys(body), [
    'event',
    'refund_id',
    'payment_id',
    'status',
    'amount',
    'currency',
    'provider',
    'provider_ref',
    'reason',
    'timestamp',
    'metadata',
  ]);
  assert.equal(body.amount, 500);
  assert.deepEqual(body.metadata, { order: 1 });
});

test('subscription events: docs/api.md#event-bodies fields in order; status canceled or revoked', () => {
  for (const [event, status] of [
    ['subscription.canceled', 'canceled'],
    ['subscription.revoked', 'revoked'],
  ] as const) {
    const body = JSON.parse(
      subscriptionEventBody(event, 'c'.repeat(32), 'sub_1', 'card_psp', { plan: 'pro' }, at),
    );
    assert.deepEqual(body, {
      event,
      payment_id: 'c'.repeat(32),
      subscription_id: 'sub_1',
      status,
      provider: 'card_psp',
      timestamp: '2026-11-22T10:11:12.345Z',
      metadata: { plan: 'pro' },
    });
  }
});
