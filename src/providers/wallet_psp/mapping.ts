import { decimalToMinor } from '../../domain/money.js';
import {
  BadReference,
  type DisputeAction,
  type InboundAction,
  type Money,
  type Paid,
} from '../types.js';
import type { WpRefundResource, WpRefundStatus } from './refundWire.js';
import type { WpDispute } from './disputeWire.js';
import type { WpCapture, WpMoney, WpOrder } from './wire.js';

/** Every event type the adapter knows; anything else is acknowledged as { kind: 'none' }. */
export const WP_EVENT_TYPES = [
  'CHECKOUT.ORDER.APPROVED',
  'CHECKOUT.ORDER.COMPLETED',
  'CHECKOUT.ORDER.VOIDED',
  'PAYMENT.CAPTURE.COMPLETED',
  'PAYMENT.CAPTURE.DENIED',
  'PAYMENT.CAPTURE.PENDING',
  'PAYMENT.CAPTURE.DECLINED',
  'PAYMENT.CAPTURE.REFUNDED',
  'PAYMENT.CAPTURE.REVERSED',
  'CUSTOMER.DISPUTE.CREATED',
  'CUSTOMER.DISPUTE.UPDATED',
  'CUSTOMER.DISPUTE.RESOLVED',
  // Not a PayPal event: the simulator's way to report a PENDING refund that failed.
  'PAYMENT.REFUND.FAILED',
] as const;
export type WpEventType = (typeof WP_EVENT_TYPES)[number];

export function isKnownEventType(t: string): t is WpEventType {
  return (WP_EVENT_TYPES as readonly string[]).includes(t);
}

function unreachable(x: never): never {
  throw new Error(`unmapped wallet_psp value ${String(x)}`);
}

/**
 * The one mapping from a wallet_psp event to what it means for the gateway (see
 * docs/providers/wallet_psp.md for the table and the reasons).
 */
export function eventAction(type: WpEventType, resource: unknown, summary: string): InboundAction {
  switch (type) {
    // Approval is not payment: the gateway captures, and the capture's own event settles.
    case 'CHECKOUT.ORDER.APPROVED':
      return { kind: 'capture_required' };
    // The capture events carry the outcome; the order's completion adds nothing.
    case 'CHECKOUT.ORDER.COMPLETED':
      return { kind: 'none' };
    // Buyer canceled, or the order expired unapproved: abandoned, not a PSP failure.
    case 'CHECKOUT.ORDER.VOIDED':
      return { kind: 'payment', outcome: 'canceled' };
    case 'PAYMENT.CAPTURE.COMPLETED':
      return {
        kind: 'payment',
        outcome: 'succeeded',
        paid: capturedMoney(resource as Partial<WpCapture>),
      };
    case 'PAYMENT.CAPTURE.DENIED':
    case 'PAYMENT.CAPTURE.DECLINED':
      return {
        kind: 'payment',
        outcome: 'failed',
        errorText: captureErrorText(resource as Partial<WpCapture>, summary),
      };
    // Held for review (eCheck, risk): a later COMPLETED or DENIED settles it.
    case 'PAYMENT.CAPTURE.PENDING':
      return { kind: 'none' };
    // The resource is the refund; its id is what the gateway stored as the refund's
    // provider_ref, so a confirmation of our own synchronous refund matches it.
    case 'PAYMENT.CAPTURE.REFUNDED':
      return refundEventAction(resource as Partial<WpRefundResource>, 'succeeded');
    case 'PAYMENT.REFUND.FAILED': {
      const refund = resource as Partial<WpRefundResource>;
      return refundEventAction(refund, 'failed', refundErrorText(refund, summary));
    }
    // Money taken back after settlement (D16): a claim, confirmed by the order's capture.
    // The payment stays succeeded (terminal).
    case 'PAYMENT.CAPTURE.REVERSED':
      return reversalAction(resource as Partial<WpCapture>) ?? { kind: 'none' };
    // A buyer's case: a claim, confirmed by the provider's dispute API.
    case 'CUSTOMER.DISPUTE.CREATED':
    case 'CUSTOMER.DISPUTE.UPDATED':
    case 'CUSTOMER.DISPUTE.RESOLVED':
      return disputeAction(resource as Partial<WpDispute>) ?? { kind: 'none' };
    default:
      return unreachable(type);
  }
}

/** What a capture took, in minor units; an amount that is not one is never read as paid. */
export function capturedMoney(capture: Partial<WpCapture>): Paid {
  const money = toMoney(capture.amount);
  if (!money) throw new BadReference('capture carries no readable amount');
  // The fee is the provider's figure for the ledger (docs/api.md#ledger); one that cannot be
  // read or is in another currency is left out rather than guessed.
  const fee = toMoney(capture.seller_receivable_breakdown?.paypal_fee);
  return fee && fee.currency === money.currency ? { ...money, feeMinor: fee.amountMinor } : money;
}

function toMoney(amount: Partial<WpMoney> | undefined): Money | null {
  if (!amount || typeof amount.value !== 'string' || typeof amount.currency_code !== 'string') {
    return null;
  }
  const amountMinor = decimalToMinor(amount.value, amount.currency_code);
  return amountMinor === null ? null : { amountMinor, currency: amount.currency_code };
}

/**
 * A refund as the provider's API answers it (GET /v2/payments/refunds/{id}): COMPLETED and
 * FAILED or CANCELLED settle it, PENDING confirms nothing yet.
 */
export function confirmedRefundAction(refund: WpRefundResource): InboundAction {
  const outcome = refundOutcome(refund.status);
  if (outcome === 'pending') return { kind: 'none' };
  const action = refundEventAction(
    refund,
    outcome,
    outcome === 'failed' ? refundErrorText(refund) : undefined,
  );
  return action.kind === 'refund' && action.amountMinor !== undefined ? action : { kind: 'none' };
}

function refundEventAction(
  refund: Partial<WpRefundResource>,
  outcome: 'succeeded' | 'failed',
  errorText?: string,
): InboundAction {
  const action: InboundAction = {
    kind: 'refund',
    outcome,
    providerRefundRef: typeof refund.id === 'string' ? refund.id : '',
  };
  const amount = refund.amount;
  if (amount && typeof amount.value === 'string' && typeof amount.currency_code === 'string') {
    const minor = decimalToMinor(amount.value, amount.currency_code);
    if (minor !== null) action.amountMinor = minor;
  }
  if (errorText !== undefined) action.errorText = errorText;
  return action;
}

/** Verbatim provider text for a failed refund: its reason, else the event summary. */
export function refundErrorText(
  refund: Partial<WpRefundResource> | undefined,
  summary = '',
): string {
  const reason = refund?.status_details?.reason;
  if (typeof reason === 'string' && reason) return reason;
  return summary || 'refund failed';
}

/**
 * What the refund call's answer means (refund()): COMPLETED is a synchronous refund, PENDING
 * settles later by webhook, FAILED and CANCELLED are the provider saying no.
 */
export function refundOutcome(status: WpRefundStatus): 'succeeded' | 'pending' | 'failed' {
  switch (status) {
    case 'COMPLETED':
      return 'succeeded';
    case 'PENDING':
      return 'pending';
    case 'FAILED':
    case 'CANCELLED':
      return 'failed';
    default:
      return unreachable(status);
  }
}

/**
 * Verbatim provider text for a declined capture: the capture's reason (the same text the
 * status check sees), else the event summary.
 */
export function captureErrorText(capture: Partial<WpCapture> | undefined, summary = ''): string {
  const reason = capture?.status_details?.reason;
  if (typeof reason === 'string' && reason) return reason;
  return summary || 'capture declined';
}

/** The status check (fetchStatus): what an order's current state means. */
export function orderAction(order: WpOrder): InboundAction {
  const status = order.status;
  switch (status) {
    case 'CREATED':
    case 'SAVED':
    case 'PAYER_ACTION_REQUIRED':
      return { kind: 'none' };
    case 'APPROVED':
      return { kind: 'capture_required' };
    case 'VOIDED':
      return { kind: 'payment', outcome: 'canceled' };
    case 'COMPLETED': {
      const capture = order.purchase_units[0]?.payments?.captures?.[0];
      if (!capture) return { kind: 'none' };
      return captureAction(capture);
    }
    default:
      return unreachable(status);
  }
}

function captureAction(capture: WpCapture): InboundAction {
  const status = capture.status;
  switch (status) {
    case 'COMPLETED':
    case 'PARTIALLY_REFUNDED':
    case 'REFUNDED':
    case 'REVERSED':
      // Refunded or reversed later is still paid first; the refund or dispute has its own
      // record.
      return { kind: 'payment', outcome: 'succeeded', paid: capturedMoney(capture) };
    case 'DECLINED':
    case 'FAILED':
      return { kind: 'payment', outcome: 'failed', errorText: captureErrorText(capture) };
    case 'PENDING':
      return { kind: 'none' };
    default:
      return unreachable(status);
  }
}

/**
 * A capture taken back with no dispute process (a bank reversal): a dispute lost at once
 * (D16), named by the capture. Null unless the capture says REVERSED with an amount.
 */
export function reversalAction(capture: Partial<WpCapture>): DisputeAction | null {
  if (capture.status !== 'REVERSED' || typeof capture.id !== 'string') return null;
  const money = toMoney(capture.amount);
  if (!money) return null;
  const reason = capture.status_details?.reason;
  return {
    kind: 'dispute',
    providerRef: capture.id,
    status: 'lost',
    amountMinor: money.amountMinor,
    currency: money.currency,
    reason: typeof reason === 'string' && reason ? reason : 'REVERSED',
    evidenceDueBy: null,
    openedAt: dateOrNull(capture.update_time),
    withoutCase: true,
  };
}

/**
 * A buyer's dispute in the gateway's terms: open until RESOLVED; resolved for the seller
 * (or withdrawn by the buyer, or denied) is won, anything else resolved is lost. Null for a
 * dispute without a readable id or amount.
 */
export function disputeAction(d: Partial<WpDispute>): DisputeAction | null {
  if (typeof d.dispute_id !== 'string' || d.dispute_id === '') return null;
  const money = toMoney(d.dispute_amount);
  if (!money) return null;
  return {
    kind: 'dispute',
    providerRef: d.dispute_id,
    status: d.status === 'RESOLVED' ? resolvedStatus(d.dispute_outcome?.outcome_code) : 'open',
    amountMinor: money.amountMinor,
    currency: money.currency,
    reason: typeof d.reason === 'string' ? d.reason : '',
    evidenceDueBy: d.status === 'RESOLVED' ? null : dateOrNull(d.seller_response_due_date),
    openedAt: dateOrNull(d.create_time),
  };
}

function resolvedStatus(outcome: string | undefined): 'won' | 'lost' {
  switch (outcome) {
    case 'RESOLVED_SELLER_FAVOUR':
    case 'CANCELED_BY_BUYER':
    case 'DENIED':
      return 'won';
    default:
      // RESOLVED_BUYER_FAVOUR, RESOLVED_WITH_PAYOUT, ACCEPTED or an outcome added later: the
      // buyer kept the money unless the provider says otherwise.
      return 'lost';
  }
}

function dateOrNull(v: unknown): Date | null {
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : new Date(ms);
}
