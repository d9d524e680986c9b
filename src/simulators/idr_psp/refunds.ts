import { randomInt, randomUUID } from 'node:crypto';
import {
  ACQUIRER_WALLET,
  expired,
  FINISHED_WORD,
  isDue,
  isPaid,
  refundedAmount,
  SIM_CHANNELS,
  type SimRefund,
  type SimTransaction,
} from './transactions.js';
import { providerTime, type RefundAnswerBody } from './wire.js';

/**
 * The provider's refund rules for QRIS (docs/api.md#refunds-per-provider): a same-wallet payment is refunded online
 * within 1 day of the transaction, later only manually; a cross-wallet payment online for
 * 365 days, settled by the paying wallet some time after the request. Virtual accounts have
 * no window. Windows run from the settlement time on the simulator clock, ends included.
 */
export const SAME_WALLET_WINDOW_MS = 24 * 3_600_000;
export const CROSS_WALLET_WINDOW_MS = 365 * 24 * 3_600_000;

/** The provider's words for each refusal (status_message, verbatim in `refund failed: ...`). */
export const REFUSAL = {
  sameWalletManual:
    'Online refund is not available: same-wallet QRIS payments can be refunded online within 1 day of the transaction, refund this payment manually',
  crossWalletExpired:
    'Online refund is not available: cross-wallet QRIS payments can be refunded online within 365 days of the transaction',
  notPaid: (status: string) => `Transaction cannot be refunded: it has not been paid (${status})`,
  notCancelable: (word: string) => `Transaction cannot be canceled: it is already ${word}`,
  // The provider voids with cancel only before settlement; a settled one needs the refund API.
  settled: 'Merchant cannot modify the status of the transaction',
  exceeds: (amount: number, refundable: number) =>
    `Refund amount ${amount}.00 exceeds the refundable amount ${refundable}.00`,
} as const;

export const REFUND_APPROVED = 'Success, refund request is approved';
export const REFUND_PENDING =
  "Refund request is accepted and is being processed by the buyer's wallet";
export const CANCELED = 'Success, transaction is canceled';
export const DEFAULT_REFUND_FAILURE = "Refund declined by the buyer's wallet";

/** What a /cancel request asks for: null is a plain cancel (no refund fields in the body). */
export interface RefundRequest {
  refund_key?: string;
  amount?: number;
  reason?: string;
}

export interface SimAnswer {
  http: number;
  body: Record<string, unknown>;
}

function refusal(http: number, statusMessage: string, validation?: string[]): SimAnswer {
  return {
    http,
    body: {
      status_code: String(http),
      status_message: statusMessage,
      ...(validation ? { validation_messages: validation } : {}),
      id: randomUUID(),
    },
  };
}

const INVALID = 'One or more parameters in the payload is invalid.';

/** The /cancel body: empty (or naming none of the refund fields) is a plain cancel. */
export function parseCancelBody(raw: Buffer): { request: RefundRequest | null } | SimAnswer {
  const text = raw.toString('utf8').trim();
  if (text === '') return { request: null };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return refusal(400, 'Request body is not valid JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return refusal(400, 'Request body is not valid JSON');
  }
  const b = v as Record<string, unknown>;
  if (b.refund_key === undefined && b.amount === undefined && b.reason === undefined) {
    return { request: null };
  }
  const problems: string[] = [];
  const req: RefundRequest = {};
  if (b.refund_key !== undefined) {
    if (typeof b.refund_key !== 'string' || b.refund_key.length < 1 || b.refund_key.length > 50) {
      problems.push('refund_key must be a string of 1 to 50 characters');
    } else req.refund_key = b.refund_key;
  }
  if (b.amount !== undefined) {
    if (typeof b.amount !== 'number' || !Number.isSafeInteger(b.amount) || b.amount <= 0) {
      problems.push('amount must be a positive integer (whole rupiah)');
    } else req.amount = b.amount;
  }
  if (b.reason !== undefined) {
    if (typeof b.reason !== 'string' || b.reason.length > 255) {
      problems.push('reason must be a string of at most 255 characters');
    } else req.reason = b.reason;
  }
  return problems.length > 0 ? refusal(400, INVALID, problems) : { request: req };
}

export type CancelOutcome =
  /** A pending transaction canceled: answer, then send the cancel notification. */
  | { kind: 'canceled'; next: SimTransaction; answer: SimAnswer }
  /** Pending but past its expiry: it expires (send that notification), and the cancel is refused. */
  | { kind: 'lapsed'; next: SimTransaction; answer: SimAnswer }
  /** A refund accepted (done, or pending at the paying wallet); no notification now. */
  | { kind: 'refunded'; next: SimTransaction; answer: SimAnswer }
  /** A refusal, or the replay of an earlier refund's answer; nothing changes. */
  | { kind: 'answered'; answer: SimAnswer };

function isCrossWallet(tx: SimTransaction): boolean {
  return tx.qr_string !== null && (tx.wallet ?? ACQUIRER_WALLET) !== ACQUIRER_WALLET;
}

/** The window rule for this transaction; null when a refund is possible online now. */
function windowRefusal(tx: SimTransaction, now: number): string | null {
  if (tx.qr_string === null) return null;
  const elapsed = now - (tx.settlement_time_ms ?? tx.transaction_time_ms);
  if (isCrossWallet(tx))
    return elapsed > CROSS_WALLET_WINDOW_MS ? REFUSAL.crossWalletExpired : null;
  return elapsed > SAME_WALLET_WINDOW_MS ? REFUSAL.sameWalletManual : null;
}

/** Refunds that hold part of the amount: done, and pending at the paying wallet. */
function committedAmount(tx: SimTransaction): number {
  return (tx.refunds ?? [])
    .filter((r) => r.status !== 'failed')
    .reduce((sum, r) => sum + r.amount, 0);
}

function statusAfterRefunds(tx: SimTransaction): SimTransaction['transaction_status'] {
  const refunded = refundedAmount(tx);
  if (refunded === 0) return 'settlement';
  return refunded >= tx.gross_amount ? 'refund' : 'partial_refund';
}

function refundAnswer(tx: SimTransaction, r: SimRefund): RefundAnswerBody {
  const pending = r.status === 'pending';
  return {
    status_code: pending ? '201' : '200',
    status_message: pending ? REFUND_PENDING : REFUND_APPROVED,
    transaction_id: tx.transaction_id,
    order_id: tx.order_id,
    gross_amount: `${tx.gross_amount}.00`,
    currency: tx.currency,
    payment_type: SIM_CHANNELS[tx.channel].paymentType,
    transaction_time: providerTime(tx.transaction_time_ms),
    transaction_status: tx.transaction_status,
    refund_chargeback_id: r.refund_chargeback_id,
    refund_amount: `${r.amount}.00`,
    refund_key: r.refund_key,
    ...(pending ? { refund_status: 'pending' } : {}),
  };
}

/**
 * POST /v2/{order_id}/cancel, decided under the transaction's row lock: cancels a pending
 * transaction and refuses everything else, a settled one included (the provider voids only
 * before settlement; money already moved goes back through the refund operation).
 */
export function decideCancel(tx: SimTransaction, now: number): CancelOutcome {
  if (!isDue(tx, now) && isPaid(tx)) {
    return { kind: 'answered', answer: refusal(412, REFUSAL.settled) };
  }
  return decide(tx, null, now);
}

/**
 * POST /v2/{order_id}/refund and /v2/{order_id}/refund/online/direct: refunds a paid
 * transaction (idempotent on refund_key, the whole amount when none is given) and refuses
 * an unpaid one.
 */
export function decideRefund(tx: SimTransaction, req: RefundRequest | null, now: number) {
  return decide(tx, req ?? {}, now);
}

function decide(tx: SimTransaction, req: RefundRequest | null, now: number): CancelOutcome {
  if (isDue(tx, now)) {
    const next = expired(tx);
    const answer =
      req === null
        ? refusal(412, REFUSAL.notCancelable(FINISHED_WORD.expire))
        : refusal(412, REFUSAL.notPaid(next.transaction_status));
    return { kind: 'lapsed', next, answer };
  }
  if (!isPaid(tx)) {
    if (req !== null) {
      return { kind: 'answered', answer: refusal(412, REFUSAL.notPaid(tx.transaction_status)) };
    }
    if (tx.transaction_status !== 'pending') {
      const word = FINISHED_WORD[tx.transaction_status];
      return { kind: 'answered', answer: refusal(412, REFUSAL.notCancelable(word)) };
    }
    const next: SimTransaction = {
      ...tx,
      transaction_status: 'cancel',
      status_message: 'Transaction canceled by the merchant',
    };
    return {
      kind: 'canceled',
      next,
      answer: {
        http: 200,
        body: {
          status_code: '200',
          status_message: CANCELED,
          transaction_id: next.transaction_id,
          order_id: next.order_id,
          gross_amount: `${next.gross_amount}.00`,
          currency: next.currency,
          payment_type: SIM_CHANNELS[next.channel].paymentType,
          transaction_time: providerTime(next.transaction_time_ms),
          transaction_status: 'cancel',
          fraud_status: 'accept',
        },
      },
    };
  }

  // Paid: a refund.
  const key = req?.refund_key;
  const earlier = key === undefined ? undefined : tx.refunds?.find((r) => r.refund_key === key);
  if (earlier) return { kind: 'answered', answer: earlier.answer };
  const window = windowRefusal(tx, now);
  if (window) return { kind: 'answered', answer: refusal(412, window) };
  const amount = req?.amount ?? tx.gross_amount;
  const refundable = tx.gross_amount - committedAmount(tx);
  if (amount > refundable) {
    return { kind: 'answered', answer: refusal(412, REFUSAL.exceeds(amount, refundable)) };
  }
  // test_scenario refund_pending: any refund waits, as a cross-wallet one does.
  const pending = isCrossWallet(tx) || tx.custom_field1 === 'refund_pending';
  const refund: SimRefund = {
    refund_key: key ?? randomUUID(),
    refund_chargeback_id: randomInt(1, 2 ** 31 - 1),
    amount,
    reason: req?.reason ?? '',
    status: pending ? 'pending' : 'succeeded',
    created_ms: now,
    settled_ms: pending ? null : now,
    failure_message: null,
    answer: { http: 200, body: {} },
  };
  const withRefund: SimTransaction = { ...tx, refunds: [...(tx.refunds ?? []), refund] };
  const next: SimTransaction = {
    ...withRefund,
    transaction_status: statusAfterRefunds(withRefund),
  };
  refund.answer = { http: 200, body: { ...refundAnswer(next, refund) } };
  return { kind: 'refunded', next, answer: refund.answer };
}

/**
 * The paying wallet settles a pending cross-wallet refund (simulator actions refund_succeed
 * and refund_fail). refundKey picks one; by default the oldest pending refund.
 */
export function settlePendingRefund(
  tx: SimTransaction,
  outcome: 'succeeded' | 'failed',
  now: number,
  opts: { refundKey?: string; failureMessage?: string } = {},
): { next: SimTransaction; refund: SimRefund } | { problem: string } {
  const refunds = tx.refunds ?? [];
  const target = refunds.find(
    (r) =>
      r.status === 'pending' && (opts.refundKey === undefined || r.refund_key === opts.refundKey),
  );
  if (!target) {
    return {
      problem:
        opts.refundKey === undefined
          ? 'no pending refund'
          : `no pending refund with refund_key ${opts.refundKey}`,
    };
  }
  const settled: SimRefund = {
    ...target,
    status: outcome,
    settled_ms: now,
    failure_message: outcome === 'failed' ? (opts.failureMessage ?? DEFAULT_REFUND_FAILURE) : null,
  };
  const withSettled: SimTransaction = {
    ...tx,
    refunds: refunds.map((r) => (r === target ? settled : r)),
  };
  const next: SimTransaction = {
    ...withSettled,
    transaction_status: statusAfterRefunds(withSettled),
    ...(outcome === 'succeeded' ? { status_message: 'midtrans payment notification' } : {}),
  };
  return { next, refund: settled };
}

export function hasPendingRefund(tx: SimTransaction): boolean {
  return (tx.refunds ?? []).some((r) => r.status === 'pending');
}
