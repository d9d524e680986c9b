import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { walletPsp } from '../../src/providers/wallet_psp/index.js';
import {
  WP_EVENT_TYPES,
  orderAction,
  refundOutcome,
} from '../../src/providers/wallet_psp/mapping.js';
import type { WpCapture, WpOrder, WpOrderStatus } from '../../src/providers/wallet_psp/wire.js';

const pid = '0123456789abcdef0123456789abcdef';

function capture(status: WpCapture['status'], reason?: string): WpCapture {
  return {
    id: 'CAP1',
    status,
    ...(reason ? { status_details: { reason } } : {}),
    amount: { currency_code: 'EUR', value: '12.34' },
    custom_id: pid,
    supplementary_data: { related_ids: { order_id: 'ORDER1' } },
    create_time: '2026-01-01T00:00:00Z',
    update_time: '2026-01-01T00:00:00Z',
  };
}

function order(status: WpOrderStatus, cap?: WpCapture): WpOrder {
  return {
    id: 'ORDER1',
    intent: 'CAPTURE',
    status,
    purchase_units: [
      {
        custom_id: pid,
        amount: { currency_code: 'EUR', value: '12.34' },
        ...(cap ? { payments: { captures: [cap] } } : {}),
      },
    ],
    create_time: '2026-01-01T00:00:00Z',
    update_time: '2026-01-01T00:00:00Z',
    links: [],
  };
}

function action(eventType: string, resourceType: string, resource: object, summary = '') {
  const body = {
    id: 'WH-1',
    event_type: eventType,
    resource_type: resourceType,
    summary,
    resource,
  };
  return walletPsp.parseWebhook({}, Buffer.from(JSON.stringify(body))).action;
}

describe('event mapping (docs/providers/wallet_psp.md)', () => {
  test('CHECKOUT.ORDER.APPROVED -> capture_required', () => {
    assert.deepEqual(action('CHECKOUT.ORDER.APPROVED', 'checkout-order', order('APPROVED')), {
      kind: 'capture_required',
    });
  });
  test('CHECKOUT.ORDER.COMPLETED -> none', () => {
    assert.deepEqual(
      action(
        'CHECKOUT.ORDER.COMPLETED',
        'checkout-order',
        order('COMPLETED', capture('COMPLETED')),
      ),
      { kind: 'none' },
    );
  });
  test('CHECKOUT.ORDER.VOIDED (cancel and expiry) -> canceled', () => {
    for (const summary of ['Checkout Order voided: canceled by the payer', 'expired']) {
      assert.deepEqual(
        action('CHECKOUT.ORDER.VOIDED', 'checkout-order', order('VOIDED'), summary),
        {
          kind: 'payment',
          outcome: 'canceled',
        },
      );
    }
  });
  test('PAYMENT.CAPTURE.COMPLETED -> succeeded, with what the capture took', () => {
    assert.deepEqual(action('PAYMENT.CAPTURE.COMPLETED', 'capture', capture('COMPLETED')), {
      kind: 'payment',
      outcome: 'succeeded',
      paid: { amountMinor: 1234, currency: 'EUR' },
    });
    // A capture that does not say what it took is never read as paid.
    assert.throws(
      () => action('PAYMENT.CAPTURE.COMPLETED', 'capture', { id: 'X', custom_id: pid }),
      /capture carries no readable amount/,
    );
  });
  test('PAYMENT.CAPTURE.DENIED -> failed with the provider text verbatim', () => {
    assert.deepEqual(
      action(
        'PAYMENT.CAPTURE.DENIED',
        'capture',
        capture('DECLINED', 'DECLINED_BY_PROCESSOR'),
        'Payment denied for 12.34 EUR',
      ),
      { kind: 'payment', outcome: 'failed', errorText: 'DECLINED_BY_PROCESSOR' },
    );
    assert.deepEqual(
      action(
        'PAYMENT.CAPTURE.DENIED',
        'capture',
        capture('DECLINED'),
        'Payment denied for 12.34 EUR',
      ),
      { kind: 'payment', outcome: 'failed', errorText: 'Payment denied for 12.34 EUR' },
    );
  });
  test('PAYMENT.CAPTURE.DECLINED -> failed', () => {
    assert.deepEqual(action('PAYMENT.CAPTURE.DECLINED', 'capture', capture('DECLINED', 'X')), {
      kind: 'payment',
      outcome: 'failed',
      errorText: 'X',
    });
  });
  test('PAYMENT.CAPTURE.PENDING -> none', () => {
    assert.deepEqual(action('PAYMENT.CAPTURE.PENDING', 'capture', capture('PENDING')), {
      kind: 'none',
    });
  });
  test('PAYMENT.CAPTURE.REFUNDED -> refund succeeded with the refund id and amount', () => {
    const refund = {
      id: 'REF1',
      status: 'COMPLETED',
      amount: { currency_code: 'EUR', value: '5.10' },
      custom_id: pid,
      create_time: '2026-01-01T00:00:00Z',
      update_time: '2026-01-01T00:00:00Z',
    };
    assert.deepEqual(action('PAYMENT.CAPTURE.REFUNDED', 'refund', refund), {
      kind: 'refund',
      outcome: 'succeeded',
      providerRefundRef: 'REF1',
      amountMinor: 510,
    });
    const odd = { ...refund, amount: { currency_code: 'EUR', value: '5.101' } };
    assert.deepEqual(action('PAYMENT.CAPTURE.REFUNDED', 'refund', odd), {
      kind: 'refund',
      outcome: 'succeeded',
      providerRefundRef: 'REF1',
    });
  });
  test('PAYMENT.CAPTURE.REVERSED -> a dispute lost at once, named by the capture', () => {
    assert.deepEqual(
      action('PAYMENT.CAPTURE.REVERSED', 'capture', capture('REVERSED', 'CHARGEBACK')),
      {
        kind: 'dispute',
        providerRef: 'CAP1',
        status: 'lost',
        amountMinor: 1234,
        currency: 'EUR',
        reason: 'CHARGEBACK',
        evidenceDueBy: null,
        openedAt: new Date('2026-01-01T00:00:00Z'),
        withoutCase: true,
      },
    );
  });
  test('PAYMENT.CAPTURE.REVERSED whose capture is not reversed -> none', () => {
    assert.deepEqual(action('PAYMENT.CAPTURE.REVERSED', 'capture', capture('REFUNDED')), {
      kind: 'none',
    });
  });
  test('PAYMENT.CAPTURE.REFUNDED of our own refund: its id is the refund to match', () => {
    const refund = {
      id: 'REF2',
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: '25.99' },
      custom_id: pid,
      invoice_id: 'f'.repeat(32),
      create_time: '2026-01-01T00:00:00Z',
      update_time: '2026-01-01T00:00:00Z',
      links: [{ href: 'https://api.example/v2/payments/captures/CAP1', rel: 'up', method: 'GET' }],
    };
    const body = {
      id: 'WH-2',
      event_type: 'PAYMENT.CAPTURE.REFUNDED',
      resource_type: 'refund',
      summary: '',
      resource: refund,
    };
    assert.deepEqual(walletPsp.parseWebhook({}, Buffer.from(JSON.stringify(body))), {
      eventType: 'PAYMENT.CAPTURE.REFUNDED',
      paymentId: pid,
      action: {
        kind: 'refund',
        outcome: 'succeeded',
        providerRefundRef: 'REF2',
        amountMinor: 2599,
      },
    });
  });
  test('PAYMENT.REFUND.FAILED -> refund failed, errorText = status_details.reason, else summary', () => {
    const refund = {
      id: 'REF3',
      status: 'FAILED',
      status_details: { reason: 'INSUFFICIENT_FUNDS' },
      amount: { currency_code: 'EUR', value: '42.00' },
      custom_id: pid,
      create_time: '2026-01-01T00:00:00Z',
      update_time: '2026-01-01T00:00:00Z',
    };
    assert.deepEqual(
      action('PAYMENT.REFUND.FAILED', 'refund', refund, 'A 42.00 EUR refund failed'),
      {
        kind: 'refund',
        outcome: 'failed',
        providerRefundRef: 'REF3',
        amountMinor: 4200,
        errorText: 'INSUFFICIENT_FUNDS',
      },
    );
    const bare: Partial<typeof refund> = { ...refund };
    delete bare.status_details;
    assert.deepEqual(action('PAYMENT.REFUND.FAILED', 'refund', bare, 'A 42.00 EUR refund failed'), {
      kind: 'refund',
      outcome: 'failed',
      providerRefundRef: 'REF3',
      amountMinor: 4200,
      errorText: 'A 42.00 EUR refund failed',
    });
    assert.deepEqual(action('PAYMENT.REFUND.FAILED', 'refund', bare), {
      kind: 'refund',
      outcome: 'failed',
      providerRefundRef: 'REF3',
      amountMinor: 4200,
      errorText: 'refund failed',
    });
  });
  test('a refund event without custom_id or order id is a bad reference', () => {
    const body = {
      id: 'WH-3',
      event_type: 'PAYMENT.REFUND.FAILED',
      resource_type: 'refund',
      summary: '',
      resource: { id: 'REF4', status: 'FAILED' },
    };
    assert.throws(
      () => walletPsp.parseWebhook({}, Buffer.from(JSON.stringify(body))),
      /PAYMENT.REFUND.FAILED carries no custom_id or order id/,
    );
  });
  test('every known event type is mapped', () => {
    assert.ok(WP_EVENT_TYPES.includes('PAYMENT.REFUND.FAILED'));
    for (const t of WP_EVENT_TYPES) {
      const amount = { currency_code: 'USD', value: '1.00' };
      assert.doesNotThrow(() => action(t, 'refund', { id: 'X', custom_id: pid, amount }));
    }
  });
});

describe('order status mapping (fetchStatus)', () => {
  test('every order status', () => {
    assert.deepEqual(orderAction(order('CREATED')), { kind: 'none' });
    assert.deepEqual(orderAction(order('SAVED')), { kind: 'none' });
    assert.deepEqual(orderAction(order('PAYER_ACTION_REQUIRED')), { kind: 'none' });
    assert.deepEqual(orderAction(order('APPROVED')), { kind: 'capture_required' });
    assert.deepEqual(orderAction(order('VOIDED')), { kind: 'payment', outcome: 'canceled' });
    assert.deepEqual(orderAction(order('COMPLETED')), { kind: 'none' });
  });
  test('a completed order by its capture', () => {
    const ok = {
      kind: 'payment',
      outcome: 'succeeded',
      paid: { amountMinor: 1234, currency: 'EUR' },
    };
    assert.deepEqual(orderAction(order('COMPLETED', capture('COMPLETED'))), ok);
    assert.deepEqual(orderAction(order('COMPLETED', capture('REFUNDED'))), ok);
    assert.deepEqual(orderAction(order('COMPLETED', capture('PARTIALLY_REFUNDED'))), ok);
    assert.deepEqual(orderAction(order('COMPLETED', capture('PENDING'))), { kind: 'none' });
    assert.deepEqual(
      orderAction(order('COMPLETED', capture('DECLINED', 'DECLINED_BY_PROCESSOR'))),
      {
        kind: 'payment',
        outcome: 'failed',
        errorText: 'DECLINED_BY_PROCESSOR',
      },
    );
    assert.deepEqual(orderAction(order('COMPLETED', capture('FAILED'))), {
      kind: 'payment',
      outcome: 'failed',
      errorText: 'capture declined',
    });
  });
});

describe('refund answer mapping (refund())', () => {
  test('every refund status', () => {
    assert.equal(refundOutcome('COMPLETED'), 'succeeded');
    assert.equal(refundOutcome('PENDING'), 'pending');
    assert.equal(refundOutcome('FAILED'), 'failed');
    assert.equal(refundOutcome('CANCELLED'), 'failed');
  });
});
