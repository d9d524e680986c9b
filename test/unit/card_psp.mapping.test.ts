import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkoutStatusAction } from '../../src/providers/card_psp/mapping.js';
import { cardPsp } from '../../src/providers/card_psp/index.js';
import { BadReference, type InboundEvent } from '../../src/providers/types.js';

// Every row of the card_psp mapping table (docs/providers/card_psp.md), through parseWebhook.

const PID = 'c'.repeat(32);
const CHECKOUT = '6b1a9f2e-0000-4000-8000-000000000001';
const SUB = '6b1a9f2e-0000-4000-8000-0000000000aa';
const ORDER = '6b1a9f2e-0000-4000-8000-0000000000b1';

function parse(type: string, data: Record<string, unknown>): InboundEvent {
  const body = JSON.stringify({ type, timestamp: '2025-03-01T10:00:00.123456Z', data });
  return cardPsp.parseWebhook({}, Buffer.from(body, 'utf8'));
}

function checkout(status: string, extra: Record<string, unknown> = {}) {
  return { id: CHECKOUT, status, metadata: { payment_id: PID }, ...extra };
}

function subscription(extra: Record<string, unknown> = {}) {
  return {
    id: SUB,
    status: 'active',
    current_period_end: '2025-04-01T10:00:00+00:00',
    checkout_id: CHECKOUT,
    metadata: { payment_id: PID },
    ...extra,
  };
}

function order(billingReason: string | undefined, extra: Record<string, unknown> = {}) {
  return {
    id: ORDER,
    status: 'paid',
    billing_reason: billingReason,
    total_amount: 1999,
    net_amount: 1999,
    refunded_amount: 0,
    currency: 'usd',
    checkout_id: CHECKOUT,
    subscription_id: SUB,
    subscription: subscription(),
    metadata: { payment_id: PID },
    ...extra,
  };
}

const NONE = { kind: 'none' };

test('checkout.created and checkout.updated open/confirmed/succeeded change nothing', () => {
  assert.deepEqual(parse('checkout.created', checkout('open')), {
    eventType: 'checkout.created',
    paymentId: PID,
    providerRef: CHECKOUT,
    action: NONE,
  });
  for (const status of ['open', 'confirmed', 'succeeded']) {
    const ev = parse('checkout.updated', checkout(status));
    assert.deepEqual(ev.action, NONE, status);
    assert.equal(ev.paymentId, PID);
    assert.equal(ev.providerRef, CHECKOUT);
  }
});

test('checkout.updated failed -> failed with the provider text verbatim', () => {
  const ev = parse(
    'checkout.updated',
    checkout('failed', { failure_reason: 'Insufficient funds.' }),
  );
  assert.deepEqual(ev.action, {
    kind: 'payment',
    outcome: 'failed',
    errorText: 'Insufficient funds.',
  });
  const bare = parse('checkout.updated', checkout('failed'));
  assert.deepEqual(bare.action, {
    kind: 'payment',
    outcome: 'failed',
    errorText: 'checkout failed',
  });
});

test('checkout.updated expired and checkout.expired -> canceled', () => {
  assert.deepEqual(parse('checkout.updated', checkout('expired')).action, {
    kind: 'payment',
    outcome: 'canceled',
  });
  assert.deepEqual(parse('checkout.expired', checkout('expired')).action, {
    kind: 'payment',
    outcome: 'canceled',
  });
});

test('order.paid subscription_create -> succeeded with metadata enrichment (docs/api.md#metadata-enrichment)', () => {
  const ev = parse('order.paid', order('subscription_create'));
  assert.deepEqual(ev, {
    eventType: 'order.paid',
    paymentId: PID,
    providerRef: CHECKOUT,
    subscriptionId: SUB,
    action: {
      kind: 'payment',
      outcome: 'succeeded',
      paid: { amountMinor: 1999, currency: 'USD' },
      enrichment: {
        card_psp_subscription_id: SUB,
        current_period_end: '2025-04-01T10:00:00.000Z',
        card_psp_event_type: 'order.paid',
      },
    },
  });
});

test('order.paid purchase (no subscription) -> succeeded with the event type only', () => {
  const ev = parse('order.paid', order('purchase', { subscription_id: null, subscription: null }));
  assert.equal(ev.subscriptionId, undefined);
  assert.deepEqual(ev.action, {
    kind: 'payment',
    outcome: 'succeeded',
    paid: { amountMinor: 1999, currency: 'USD' },
    enrichment: { card_psp_event_type: 'order.paid' },
  });
});

test('order.paid says what it charged: its net amount (after discount, before tax)', () => {
  const discounted = parse(
    'order.paid',
    order('purchase', { net_amount: 500, tax_amount: 100, total_amount: 600 }),
  );
  assert.deepEqual(
    discounted.action.kind === 'payment' &&
      discounted.action.outcome === 'succeeded' &&
      discounted.action.paid,
    { amountMinor: 500, currency: 'USD' },
  );
  // Without its net amount an order is never read as a payment.
  assert.throws(
    () => parse('order.paid', order('purchase', { net_amount: undefined })),
    (err: unknown) =>
      err instanceof BadReference &&
      err.message === `order.paid ${ORDER} carries no net_amount or currency`,
  );
});

test('order.paid with an unknown billing_reason still pays the referenced payment', () => {
  const ev = parse('order.paid', order('something_new'));
  assert.equal(ev.action.kind, 'payment');
  assert.equal(ev.action.kind === 'payment' && ev.action.outcome, 'succeeded');
});

test('order.paid subscription_cycle -> renewal: new order id, amount, uppercase currency', () => {
  const renewalSub = subscription({ current_period_end: '2025-05-01T10:00:00Z' });
  const ev = parse(
    'order.paid',
    order('subscription_cycle', { checkout_id: null, subscription: renewalSub }),
  );
  assert.deepEqual(ev, {
    eventType: 'order.paid',
    paymentId: PID,
    providerRef: undefined,
    subscriptionId: SUB,
    action: {
      kind: 'renewal',
      subscriptionId: SUB,
      providerRef: ORDER,
      amountMinor: 1999,
      currency: 'USD',
      enrichment: {
        card_psp_subscription_id: SUB,
        current_period_end: '2025-05-01T10:00:00.000Z',
        card_psp_event_type: 'order.paid',
      },
    },
  });
});

test('order.paid subscription_update, order.created, order.updated change nothing', () => {
  assert.deepEqual(parse('order.paid', order('subscription_update')).action, NONE);
  assert.deepEqual(parse('order.created', order('subscription_create')).action, NONE);
  assert.deepEqual(parse('order.updated', order('subscription_create')).action, NONE);
});

test('order.refunded -> refund succeeded (order id as refund ref, refunded amount)', () => {
  const ev = parse(
    'order.refunded',
    order('subscription_create', { status: 'refunded', refunded_amount: 1500 }),
  );
  assert.equal(ev.paymentId, PID);
  assert.equal(ev.providerRef, CHECKOUT);
  assert.deepEqual(ev.action, {
    kind: 'refund',
    outcome: 'succeeded',
    providerRefundRef: ORDER,
    amountMinor: 1500,
    // The order's running total: a later, larger one is recorded as one more refund.
    refundedTotalMinor: 1500,
  });
});

test('order.refunded of a renewal order names the renewal payment by its order id', () => {
  const ev = parse(
    'order.refunded',
    order('subscription_cycle', { checkout_id: null, status: 'refunded', refunded_amount: 1999 }),
  );
  assert.equal(ev.paymentId, undefined);
  assert.equal(ev.providerRef, ORDER);
  assert.deepEqual(ev.action, {
    kind: 'refund',
    outcome: 'succeeded',
    providerRefundRef: ORDER,
    amountMinor: 1999,
    refundedTotalMinor: 1999,
  });
});

test('subscription.canceled and subscription.revoked -> subscription events', () => {
  for (const type of ['subscription.canceled', 'subscription.revoked'] as const) {
    const ev = parse(type, subscription());
    assert.deepEqual(ev, {
      eventType: type,
      subscriptionId: SUB,
      paymentId: PID,
      providerRef: CHECKOUT,
      action: {
        kind: 'subscription',
        event: type,
        subscriptionId: SUB,
        enrichment: {
          card_psp_subscription_id: SUB,
          current_period_end: '2025-04-01T10:00:00.000Z',
          card_psp_event_type: type,
        },
      },
    });
  }
});

test('other subscription.* events change nothing but carry the subscription id', () => {
  for (const type of [
    'subscription.created',
    'subscription.updated',
    'subscription.active',
    'subscription.uncanceled',
    'subscription.past_due',
  ]) {
    const ev = parse(type, subscription());
    assert.deepEqual(ev.action, NONE, type);
    assert.equal(ev.subscriptionId, SUB);
  }
});

test('refund.created/updated: succeeded and failed map, pending and canceled do not', () => {
  const refund = (status: string, extra: Record<string, unknown> = {}) => ({
    id: 'ref_1',
    status,
    amount: 700,
    order_id: ORDER,
    metadata: { payment_id: PID },
    ...extra,
  });
  assert.deepEqual(parse('refund.updated', refund('succeeded')).action, {
    kind: 'refund',
    outcome: 'succeeded',
    providerRefundRef: 'ref_1',
    amountMinor: 700,
  });
  assert.deepEqual(parse('refund.created', refund('succeeded')).action.kind, 'refund');
  assert.deepEqual(
    parse('refund.updated', refund('failed', { failure_reason: 'Refund window closed' })).action,
    {
      kind: 'refund',
      outcome: 'failed',
      providerRefundRef: 'ref_1',
      amountMinor: 700,
      errorText: 'Refund window closed',
    },
  );
  assert.deepEqual(parse('refund.updated', refund('pending')).action, NONE);
  assert.deepEqual(parse('refund.updated', refund('canceled')).action, NONE);
});

test('a refund naming no payment_id (made in the dashboard) is acknowledged without effect', () => {
  // Its metadata is the refund's own; order.refunded reports the same refund with the checkout.
  for (const type of ['refund.created', 'refund.updated']) {
    for (const status of ['pending', 'succeeded', 'failed']) {
      const data = { id: 'r', status, amount: 700, order_id: ORDER, metadata: {} };
      assert.deepEqual(parse(type, data), { eventType: type, action: NONE, paymentId: undefined });
    }
  }
});

test('informational events and unknown event types change nothing', () => {
  for (const type of [
    'customer.created',
    'customer.state_changed',
    'benefit_grant.created',
    'product.updated',
  ]) {
    const ev = parse(type, { id: 'x', metadata: { payment_id: PID } });
    assert.deepEqual(ev, { eventType: type, paymentId: PID, action: NONE });
  }
  assert.deepEqual(parse('brand_new.event', { id: 'x', metadata: { payment_id: PID } }), {
    eventType: 'brand_new.event',
    paymentId: PID,
    action: NONE,
  });
});

test('a poll of a succeeded checkout settles it; as an event it does not', () => {
  const extra = { card_psp_subscription_id: SUB, card_psp_event_type: 'checkout.updated' };
  const paid = { amountMinor: 1999, currency: 'USD' };
  assert.deepEqual(checkoutStatusAction('succeeded', null, 'poll', { enrichment: extra, paid }), {
    kind: 'payment',
    outcome: 'succeeded',
    paid,
    enrichment: extra,
  });
  assert.deepEqual(checkoutStatusAction('succeeded', null, 'event'), NONE);
  assert.deepEqual(checkoutStatusAction('open', null, 'poll'), NONE);
  assert.deepEqual(checkoutStatusAction('expired', null, 'poll'), {
    kind: 'payment',
    outcome: 'canceled',
  });
  assert.deepEqual(checkoutStatusAction('failed', 'Declined', 'poll'), {
    kind: 'payment',
    outcome: 'failed',
    errorText: 'Declined',
  });
});

test('bodies not tied to any payment or subscription throw BadReference', () => {
  const raw = (s: string) => () => cardPsp.parseWebhook({}, Buffer.from(s, 'utf8'));
  const bad: [string, () => unknown][] = [
    ['not JSON', raw('{nope')],
    ['no type', raw(JSON.stringify({ data: {} }))],
    ['no data', raw(JSON.stringify({ type: 'order.paid' }))],
    ['array', raw('[]')],
    ['checkout without id', () => parse('checkout.updated', { status: 'failed' })],
    [
      'checkout with unknown status',
      () => parse('checkout.updated', { id: CHECKOUT, status: 'weird' }),
    ],
    [
      'order.paid without any reference',
      () =>
        parse(
          'order.paid',
          order('subscription_create', {
            metadata: {},
            checkout_id: null,
            subscription_id: null,
            subscription: null,
          }),
        ),
    ],
    [
      'renewal without a subscription',
      () =>
        parse(
          'order.paid',
          order('subscription_cycle', { subscription_id: null, subscription: null }),
        ),
    ],
    ['informational without payment_id', () => parse('customer.created', { id: 'cus_1' })],
    ['unknown type without payment_id', () => parse('brand_new.event', { id: 'x' })],
  ];
  for (const [what, fn] of bad) assert.throws(fn, BadReference, what);
});
