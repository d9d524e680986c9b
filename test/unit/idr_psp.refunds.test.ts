import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNotification } from '../../src/providers/idr_psp/webhook.js';
import {
  CROSS_WALLET_WINDOW_MS,
  decideCancel,
  decideRefund,
  parseCancelBody,
  REFUSAL,
  SAME_WALLET_WINDOW_MS,
  settlePendingRefund,
  type CancelOutcome,
  type RefundRequest,
} from '../../src/simulators/idr_psp/refunds.js';
import {
  applyAction,
  newTransaction,
  type SimChannel,
  type SimTransaction,
} from '../../src/simulators/idr_psp/transactions.js';
import { buildIdrNotification } from '../../src/simulators/idr_psp/wire.js';

const T0 = Date.UTC(2026, 0, 10, 3, 0, 0);
const ORDER = '0123456789abcdef0123456789abcdef';

function pending(channel: SimChannel = 'other_qris', gross = 10000): SimTransaction {
  return newTransaction({
    orderId: ORDER,
    flow: 'snap',
    channel,
    grossAmount: gross,
    email: 'buyer@example.com',
    finishUrl: null,
    merchantId: 'G000000001',
    now: T0,
  });
}

/** Paid at T0 + 1 minute (settlement_time), with the given wallet. */
function paid(wallet: string | null = null, channel: SimChannel = 'other_qris'): SimTransaction {
  return applyAction(pending(channel), 'pay', T0 + 60_000, wallet);
}
const SETTLED = T0 + 60_000;

const req = (over: RefundRequest = {}): RefundRequest => ({ refund_key: 'rk-1', ...over });

function statusMessage(out: CancelOutcome): unknown {
  return out.answer.body.status_message;
}

test('pay stores the wallet: default the acquirer gopay, another wallet as given, none for a VA', () => {
  assert.equal(paid().wallet, 'gopay');
  assert.equal(paid('ovo').wallet, 'ovo');
  assert.equal(paid('ovo', 'bca_va').wallet, null);
  assert.equal(paid().settlement_time_ms, SETTLED);
});

test('same-wallet: refunded at once up to 1 day after settlement (inclusive), then manual', () => {
  const inside = decideRefund(paid(), req(), SETTLED + SAME_WALLET_WINDOW_MS);
  assert.equal(inside.kind, 'refunded');
  assert.equal(inside.answer.http, 200);
  assert.equal(inside.answer.body.status_code, '200');
  assert.equal(inside.answer.body.transaction_status, 'refund');
  const outside = decideRefund(paid(), req(), SETTLED + SAME_WALLET_WINDOW_MS + 1);
  assert.equal(outside.kind, 'answered');
  assert.equal(outside.answer.http, 412);
  assert.equal(outside.answer.body.status_code, '412');
  assert.equal(statusMessage(outside), REFUSAL.sameWalletManual);
});

test('cross-wallet: pending up to 365 days after settlement (inclusive), then refused', () => {
  const inside = decideRefund(paid('ovo'), req(), SETTLED + CROSS_WALLET_WINDOW_MS);
  assert.equal(inside.kind, 'refunded');
  assert.equal(inside.answer.body.status_code, '201');
  assert.equal(inside.answer.body.refund_status, 'pending');
  assert.equal(inside.answer.body.transaction_status, 'settlement');
  const outside = decideRefund(paid('ovo'), req(), SETTLED + CROSS_WALLET_WINDOW_MS + 1);
  assert.equal(outside.kind, 'answered');
  assert.equal(statusMessage(outside), REFUSAL.crossWalletExpired);
});

test('virtual account: no window; a refund before payment is refused', () => {
  const years = decideRefund(paid(null, 'bca_va'), req(), SETTLED + 3 * CROSS_WALLET_WINDOW_MS);
  assert.equal(years.kind, 'refunded');
  assert.equal(years.answer.body.status_code, '200');
  const unpaid = decideRefund(pending('bca_va'), req(), T0 + 1000);
  assert.equal(unpaid.kind, 'answered');
  assert.equal(unpaid.answer.http, 412);
  assert.equal(
    statusMessage(unpaid),
    'Transaction cannot be refunded: it has not been paid (pending)',
  );
});

test('partial refunds up to the remaining amount; pending ones hold their part', () => {
  const first = decideRefund(paid('ovo'), req({ amount: 6000 }), SETTLED + 1000);
  assert.ok(first.kind === 'refunded');
  const over = decideRefund(first.next, req({ refund_key: 'rk-2', amount: 4001 }), SETTLED + 2000);
  assert.equal(statusMessage(over), 'Refund amount 4001.00 exceeds the refundable amount 4000.00');
  const rest = decideRefund(first.next, req({ refund_key: 'rk-2', amount: 4000 }), SETTLED + 2000);
  assert.equal(rest.kind, 'refunded');
});

test('the same refund_key answers the original refund and changes nothing', () => {
  const first = decideRefund(paid(), req({ amount: 3000 }), SETTLED + 1000);
  assert.ok(first.kind === 'refunded');
  assert.equal(first.next.transaction_status, 'partial_refund');
  const again = decideRefund(first.next, req({ amount: 3000 }), SETTLED + 5000);
  assert.equal(again.kind, 'answered');
  assert.deepEqual(again.answer, first.answer);
  // Even once the window has passed: the refund was made, the answer stays.
  const late = decideRefund(first.next, req(), SETTLED + 2 * SAME_WALLET_WINDOW_MS);
  assert.deepEqual(late.answer, first.answer);
});

test('cancel: a pending transaction is canceled; a finished unpaid one is refused', () => {
  const out = decideCancel(pending(), T0 + 1000);
  assert.ok(out.kind === 'canceled');
  assert.equal(out.next.transaction_status, 'cancel');
  assert.equal(out.answer.body.status_message, 'Success, transaction is canceled');
  const again = decideCancel(out.next, T0 + 2000);
  assert.equal(statusMessage(again), 'Transaction cannot be canceled: it is already canceled');
  const lapsed = decideCancel(pending(), T0 + 20 * 60_000);
  assert.ok(lapsed.kind === 'lapsed');
  assert.equal(lapsed.next.transaction_status, 'expire');
  assert.equal(statusMessage(lapsed), 'Transaction cannot be canceled: it is already expired');
});

test('cancel of a paid transaction is refused: money that moved goes back only by refund', () => {
  const refused = decideCancel(paid(), SETTLED + 1000);
  assert.equal(refused.kind, 'answered');
  assert.equal(refused.answer.http, 412);
  assert.equal(statusMessage(refused), 'Merchant cannot modify the status of the transaction');
});

test('a refund without a body on a paid transaction is a full refund under a provider key', () => {
  const out = decideRefund(paid(), null, SETTLED + 1000);
  assert.ok(out.kind === 'refunded');
  assert.equal(out.answer.body.refund_amount, '10000.00');
  assert.equal(typeof out.answer.body.refund_key, 'string');
  assert.equal(out.next.transaction_status, 'refund');
});

test('parseCancelBody: empty is a cancel, refund fields are validated', () => {
  assert.deepEqual(parseCancelBody(Buffer.alloc(0)), { request: null });
  assert.deepEqual(parseCancelBody(Buffer.from('{}')), { request: null });
  assert.deepEqual(parseCancelBody(Buffer.from('{"refund_key":"k","amount":5,"reason":"r"}')), {
    request: { refund_key: 'k', amount: 5, reason: 'r' },
  });
  const bad = parseCancelBody(Buffer.from('{"refund_key":"","amount":1.5}'));
  assert.ok(!('request' in bad));
  assert.equal(bad.http, 400);
  assert.deepEqual(bad.body.validation_messages, [
    'refund_key must be a string of 1 to 50 characters',
    'amount must be a positive integer (whole rupiah)',
  ]);
  const notJson = parseCancelBody(Buffer.from('nope'));
  assert.ok(!('request' in notJson));
  assert.equal(notJson.body.status_message, 'Request body is not valid JSON');
});

test('refund_succeed notification maps to the refund succeeded under its refund_key', () => {
  const started = decideRefund(paid('ovo'), req({ refund_key: 'a'.repeat(32) }), SETTLED + 1000);
  assert.ok(started.kind === 'refunded');
  const settled = settlePendingRefund(started.next, 'succeeded', SETTLED + 5000);
  assert.ok('next' in settled);
  assert.equal(settled.next.transaction_status, 'refund');
  const n = buildIdrNotification(settled.next, 'key', 'http://sim');
  assert.equal(n.transaction_status, 'refund');
  assert.equal(n.status_code, '200');
  assert.equal(n.refund_amount, '10000.00');
  assert.equal(n.refunds?.length, 1);
  assert.equal(n.refunds?.[0]?.refund_key, 'a'.repeat(32));
  assert.deepEqual(parseNotification(Buffer.from(JSON.stringify(n))).action, {
    kind: 'refund',
    outcome: 'succeeded',
    providerRefundRef: 'a'.repeat(32),
    amountMinor: 10000,
  });
});

test('refund_fail notification maps to the refund failed with the provider text', () => {
  const started = decideRefund(paid('ovo'), req({ refund_key: 'b'.repeat(32) }), SETTLED + 1000);
  assert.ok(started.kind === 'refunded');
  const failed = settlePendingRefund(started.next, 'failed', SETTLED + 5000);
  assert.ok('next' in failed);
  assert.equal(failed.next.transaction_status, 'settlement');
  const n = buildIdrNotification(failed.next, 'key', 'http://sim', failed.refund);
  assert.equal(n.transaction_status, 'settlement');
  assert.equal(n.status_code, '202');
  assert.equal(n.refund_amount, undefined);
  assert.deepEqual(parseNotification(Buffer.from(JSON.stringify(n))).action, {
    kind: 'refund',
    outcome: 'failed',
    providerRefundRef: 'b'.repeat(32),
    amountMinor: 10000,
    errorText: "Refund declined by the buyer's wallet",
  });
  // The failed refund frees its amount: a new refund may take it.
  const retry = decideRefund(failed.next, req({ refund_key: 'c'.repeat(32) }), SETTLED + 6000);
  assert.equal(retry.kind, 'refunded');
  // No pending refund left to settle.
  assert.deepEqual(settlePendingRefund(failed.next, 'succeeded', SETTLED + 7000), {
    problem: 'no pending refund',
  });
});
