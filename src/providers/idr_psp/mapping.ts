import { decimalToMinor, minorToDecimal } from '../../domain/money.js';
import type { InboundAction } from '../types.js';
import { isTransactionStatus, type TransactionStatus, type TransactionWire } from './wire.js';

/** What the mapping reads of a notification or a status answer. */
export type StatusFields = Pick<
  TransactionWire,
  | 'transaction_status'
  | 'status_message'
  | 'transaction_id'
  | 'fraud_status'
  | 'currency'
  | 'refund_amount'
  | 'refunds'
>;

/** Rupiah amounts: minor units are whole rupiah, the provider writes "10000.00". */
export function toGrossAmount(amountMinor: number): number {
  return Number(minorToDecimal(amountMinor, 'IDR'));
}

/**
 * The one mapping from the provider's transaction_status to what the gateway does.
 * Documented as a table in docs/providers/idr_psp.md; keep both in step.
 */
export function mapTransactionStatus(tx: StatusFields): InboundAction {
  const raw = tx.transaction_status;
  // A status the provider adds later changes nothing until we decide what it means.
  if (!isTransactionStatus(raw)) return { kind: 'none' };
  const status: TransactionStatus = raw;
  switch (status) {
    case 'settlement':
      // A refund the paying wallet declined leaves the transaction settled; its
      // notification names the refund as the last refunds[] entry.
      if (tx.refunds?.at(-1)?.status === 'failed') return refundAction(tx);
      return { kind: 'payment', outcome: 'succeeded' };
    case 'capture':
      // Card captures wait for the fraud screen: challenge is resolved by a later event.
      if (tx.fraud_status === 'challenge') return { kind: 'none' };
      if (tx.fraud_status === 'deny') {
        return { kind: 'payment', outcome: 'failed', errorText: tx.status_message };
      }
      return { kind: 'payment', outcome: 'succeeded' };
    case 'pending':
    case 'authorize':
      return { kind: 'none' };
    // docs/api.md#payment-states: a QR (or VA) that expires unpaid is recorded as failed.
    case 'deny':
    case 'failure':
    case 'expire':
      return { kind: 'payment', outcome: 'failed', errorText: tx.status_message };
    case 'cancel':
      return { kind: 'payment', outcome: 'canceled' };
    case 'refund':
    case 'partial_refund':
      return refundAction(tx);
    case 'chargeback':
    case 'partial_chargeback':
      // Disputes are handled at the provider; the gateway has no chargeback state.
      return { kind: 'none' };
    default: {
      const unreachable: never = status;
      return unreachable;
    }
  }
}

function refundAction(tx: StatusFields): InboundAction {
  const last = tx.refunds?.at(-1);
  const ref =
    last?.refund_key ||
    (last?.refund_chargeback_id !== undefined ? String(last.refund_chargeback_id) : '') ||
    tx.transaction_id;
  const failed = last?.status === 'failed';
  // The top-level refund_amount is the total refunded, never the amount of a declined one.
  const amountText = failed ? last.refund_amount : (last?.refund_amount ?? tx.refund_amount);
  const amountMinor =
    amountText === undefined ? null : decimalToMinor(amountText, tx.currency || 'IDR');
  return {
    kind: 'refund',
    outcome: failed ? 'failed' : 'succeeded',
    providerRefundRef: ref,
    ...(amountMinor === null ? {} : { amountMinor }),
    ...(failed ? { errorText: tx.status_message } : {}),
  };
}
