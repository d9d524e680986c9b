import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WpCapture } from '../../src/providers/wallet_psp/wire.js';
import { WpApiError } from '../../src/simulators/wallet_psp/orders.js';
import {
  REFUND_REFUSAL,
  REFUND_WINDOW_MS,
  captureStatusAfter,
  decideRefund,
  validateRefund,
  type RefundDecision,
  type SimRefundEntry,
  type ValidRefundRequest,
} from '../../src/simulators/wallet_psp/refunds.js';

// The simulator's capture-refund rules (docs/api.md#refunds-per-provider, #test-mode), without HTTP.

const CAPTURED_AT = Date.parse('2026-01-01T00:00:00Z');

function capture(status: WpCapture['status'] = 'COMPLETED', value = '25.00'): WpCapture {
  return {
    id: 'CAP1',
    status,
    amount: { currency_code: 'EUR', value },
    custom_id: 'p',
    create_time: '2026-01-01T00:00:00Z',
    update_time: '2026-01-01T00:00:00Z',
  };
}

function entry(
  status: SimRefundEntry['refund']['status'],
  amountMinor: number,
  requestId: string | null = null,
): SimRefundEntry {
  return {
    refund: {
      id: `R${amountMinor}${status}`,
      status,
      amount: { currency_code: 'EUR', value: (amountMinor / 100).toFixed(2) },
      create_time: '2026-01-01T00:00:00Z',
      update_time: '2026-01-01T00:00:00Z',
    },
    amountMinor,
    requestId,
  };
}

function decide(
  opts: {
    capture?: WpCapture;
    refunds?: SimRefundEntry[];
    request?: ValidRefundRequest;
    requestId?: string | null;
    at?: number;
  } = {},
): RefundDecision {
  return decideRefund({
    capture: opts.capture ?? capture(),
    refunds: opts.refunds ?? [],
    request: opts.request ?? {},
    requestId: opts.requestId ?? null,
    now: opts.at ?? CAPTURED_AT + 60_000,
  });
}

function refusal(d: RefundDecision): [number, string, string, string | undefined] {
  assert.equal(d.kind, 'refused');
  if (d.kind !== 'refused') throw new Error('unreachable');
  const detail = d.error.body.details?.[0];
  return [d.error.status, d.error.body.name, detail?.issue ?? '', detail?.description];
}

const eur = (value: string) => ({ amount: { currency: 'EUR', value } });

describe('decideRefund', () => {
  test('an empty request refunds what is left, synchronously', () => {
    assert.deepEqual(decide(), { kind: 'refund', amountMinor: 2500, status: 'COMPLETED' });
    assert.deepEqual(decide({ refunds: [entry('COMPLETED', 1000)] }), {
      kind: 'refund',
      amountMinor: 1500,
      status: 'COMPLETED',
    });
  });

  test('the window: 180 days from capture, end included; one ms later refused', () => {
    assert.equal(decide({ at: CAPTURED_AT + REFUND_WINDOW_MS - 1000 }).kind, 'refund');
    assert.equal(decide({ at: CAPTURED_AT + REFUND_WINDOW_MS }).kind, 'refund');
    assert.deepEqual(refusal(decide({ at: CAPTURED_AT + REFUND_WINDOW_MS + 1 })), [
      422,
      'UNPROCESSABLE_ENTITY',
      'REFUND_TIME_LIMIT_EXCEEDED',
      'You are over the time limit to perform a refund on this capture.',
    ]);
    assert.equal(REFUND_WINDOW_MS, 180 * 24 * 3600 * 1000);
  });

  test('amount above what is left: REFUND_AMOUNT_EXCEEDED; pending refunds count', () => {
    assert.deepEqual(refusal(decide({ request: eur('25.01') })), [
      422,
      'UNPROCESSABLE_ENTITY',
      'REFUND_AMOUNT_EXCEEDED',
      REFUND_REFUSAL.amountExceeded,
    ]);
    assert.equal(
      REFUND_REFUSAL.amountExceeded,
      'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
    );
    const refunds = [entry('COMPLETED', 1000), entry('PENDING', 1000)];
    assert.equal(refusal(decide({ refunds, request: eur('5.01') }))[2], 'REFUND_AMOUNT_EXCEEDED');
    assert.deepEqual(decide({ refunds, request: eur('5.00') }), {
      kind: 'refund',
      amountMinor: 500,
      status: 'COMPLETED',
    });
  });

  test('fully refunded: CAPTURE_FULLY_REFUNDED; failed refunds give their money back', () => {
    assert.deepEqual(refusal(decide({ refunds: [entry('COMPLETED', 2500)] })), [
      422,
      'UNPROCESSABLE_ENTITY',
      'CAPTURE_FULLY_REFUNDED',
      'The capture has already been fully refunded.',
    ]);
    assert.equal(
      decide({ refunds: [entry('FAILED', 2500), entry('CANCELLED', 2500)] }).kind,
      'refund',
    );
  });

  test('a repeated request id replays, even outside the window or when fully refunded', () => {
    const done = entry('COMPLETED', 2500, 'req-1');
    const d = decide({
      refunds: [done],
      requestId: 'req-1',
      at: CAPTURED_AT + 2 * REFUND_WINDOW_MS,
    });
    assert.deepEqual(d, { kind: 'replay', entry: done });
  });

  test('note containing "pending" (any case) stays PENDING', () => {
    for (const note of ['pending', 'Customer: PENDING review', 'keep it pending']) {
      assert.deepEqual(decide({ request: { note } }), {
        kind: 'refund',
        amountMinor: 2500,
        status: 'PENDING',
      });
    }
    assert.equal(
      (decide({ request: { note: 'pen ding' } }) as { status: string }).status,
      'COMPLETED',
    );
  });

  test('other refusals: another currency, a capture that did not complete', () => {
    assert.deepEqual(refusal(decide({ request: { amount: { currency: 'USD', value: '1.00' } } })), [
      422,
      'UNPROCESSABLE_ENTITY',
      'CURRENCY_MISMATCH',
      REFUND_REFUSAL.currencyMismatch,
    ]);
    for (const status of ['DECLINED', 'FAILED', 'PENDING'] as const) {
      assert.equal(refusal(decide({ capture: capture(status) }))[2], 'CAPTURE_NOT_REFUNDABLE');
    }
    assert.equal(decide({ capture: capture('PARTIALLY_REFUNDED') }).kind, 'refund');
  });
});

describe('validateRefund', () => {
  const v = (body: string) => validateRefund(Buffer.from(body));
  const issue = (r: ValidRefundRequest | WpApiError) =>
    r instanceof WpApiError ? [r.status, r.body.details?.[0]?.issue] : r;

  test('accepted shapes', () => {
    assert.deepEqual(v(''), {});
    assert.deepEqual(v('{}'), {});
    assert.deepEqual(
      v(
        '{"amount":{"currency_code":"EUR","value":"1.50"},"note_to_payer":"n","custom_id":"c","invoice_id":"i"}',
      ),
      { amount: { currency: 'EUR', value: '1.50' }, note: 'n', customId: 'c', invoiceId: 'i' },
    );
  });

  test('refused shapes', () => {
    assert.deepEqual(issue(v('{nope')), [400, 'MALFORMED_REQUEST_JSON']);
    assert.deepEqual(issue(v('[]')), [400, 'MALFORMED_REQUEST_JSON']);
    assert.deepEqual(issue(v('{"amount":{"value":"1.00"}}')), [400, 'MISSING_REQUIRED_PARAMETER']);
    assert.deepEqual(issue(v('{"amount":{"currency_code":"EUR","value":"1.5"}}')), [
      422,
      'DECIMAL_PRECISION',
    ]);
    assert.deepEqual(issue(v('{"amount":{"currency_code":"EUR","value":"0.00"}}')), [
      422,
      'CANNOT_BE_ZERO_OR_NEGATIVE',
    ]);
    assert.deepEqual(issue(v(JSON.stringify({ note_to_payer: 'x'.repeat(256) }))), [
      400,
      'INVALID_STRING_LENGTH',
    ]);
    assert.deepEqual(issue(v(JSON.stringify({ custom_id: '' }))), [400, 'INVALID_STRING_LENGTH']);
  });
});

describe('captureStatusAfter', () => {
  test('completed refunds move the capture; pending and failed ones do not', () => {
    assert.equal(captureStatusAfter(capture(), []), 'COMPLETED');
    assert.equal(captureStatusAfter(capture(), [entry('PENDING', 2500)]), 'COMPLETED');
    assert.equal(captureStatusAfter(capture(), [entry('FAILED', 2500)]), 'COMPLETED');
    assert.equal(captureStatusAfter(capture(), [entry('COMPLETED', 1000)]), 'PARTIALLY_REFUNDED');
    assert.equal(
      captureStatusAfter(capture(), [entry('COMPLETED', 1000), entry('COMPLETED', 1500)]),
      'REFUNDED',
    );
    assert.equal(captureStatusAfter(capture('DECLINED'), [entry('COMPLETED', 1)]), 'DECLINED');
  });
});
