/**
 * The wallet_psp simulator's transaction history (PayPal's transaction search): every capture
 * as a T0006 payment with its fee, every capture refund as a T1107, a reversal without a case
 * as a T1106, a case as the hold PayPal puts on its money (T1110) and, once resolved, the
 * hold's release (T1111) followed, when the buyer won, by the chargeback (T1201); built from
 * the simulator's own orders, refunds and cases at each call, with reconciliation_drift
 * applied (simulators/drift.ts).
 */
import type { Queryable } from '../../db/pool.js';
import { listWalletMoneyObjects } from '../../db/simObjects.js';
import { decimalToMinor, minorToDecimal } from '../../domain/money.js';
import type { WpDispute } from '../../providers/wallet_psp/disputeWire.js';
import {
  WP_EVENT_CHARGEBACK,
  WP_EVENT_CHECKOUT_PAYMENT,
  WP_EVENT_DISPUTE_HOLD,
  WP_EVENT_DISPUTE_HOLD_RELEASE,
  WP_EVENT_REFUND,
  WP_EVENT_REVERSAL,
  type WpTransactionInfo,
  type WpTransactionStatus,
} from '../../providers/wallet_psp/reportingWire.js';
import { DRIFT_AMOUNT_MINOR, driftRef, drifts } from '../drift.js';
import { scenarioOfOrder } from './faults.js';
import { orderCapture, type SimOrder } from './orders.js';
import type { SimCaptureRefunds } from './refunds.js';

export interface SimTransaction {
  at: number;
  info: WpTransactionInfo;
}

const CAPTURE_STATUS: Record<string, WpTransactionStatus> = {
  COMPLETED: 'S',
  PARTIALLY_REFUNDED: 'S',
  REFUNDED: 'S',
  // The payment did complete; its reversal is a transaction of its own (T1106).
  REVERSED: 'S',
  PENDING: 'P',
  DECLINED: 'D',
  FAILED: 'D',
};
const REFUND_STATUS: Record<string, WpTransactionStatus> = {
  COMPLETED: 'S',
  PENDING: 'P',
  FAILED: 'D',
  CANCELLED: 'V',
};

const paypalTime = (iso: string) => iso.replace(/(\.\d+)?Z$/, '+0000');

function money(minor: number, currency: string) {
  return { currency_code: currency, value: minorToDecimal(minor, currency) };
}

/** One client id's payments and refunds, oldest first. */
export async function listSimTransactions(
  db: Queryable,
  clientId: string,
): Promise<SimTransaction[]> {
  const objects = await listWalletMoneyObjects(db, clientId);
  const drifting = new Set<string>();
  const cases = new Set(
    objects.flatMap((o) => (o.kind === 'dispute' ? [(o.data as { orderId: string }).orderId] : [])),
  );
  const out: SimTransaction[] = [];
  const account = clientId.slice(1, 14).toUpperCase();
  for (const { kind, data } of objects) {
    if (kind !== 'order') continue;
    const { order } = data as SimOrder;
    const capture = orderCapture(order);
    if (!capture || !CAPTURE_STATUS[capture.status]) continue;
    const currency = capture.amount.currency_code;
    const minor = decimalToMinor(capture.amount.value, currency) ?? 0;
    const fee = capture.seller_receivable_breakdown?.paypal_fee;
    const drift = drifts(scenarioOfOrder(order));
    if (drift) drifting.add(order.id);
    const base = {
      paypal_account_id: account,
      transaction_event_code: WP_EVENT_CHECKOUT_PAYMENT,
      transaction_initiation_date: paypalTime(capture.create_time),
      transaction_updated_date: paypalTime(capture.update_time),
      transaction_status: CAPTURE_STATUS[capture.status] as WpTransactionStatus,
    };
    out.push({
      at: Date.parse(capture.create_time),
      info: {
        ...base,
        transaction_id: capture.id,
        transaction_amount: money(minor + (drift ? DRIFT_AMOUNT_MINOR : 0), currency),
        ...(fee ? { fee_amount: { currency_code: currency, value: `-${fee.value}` } } : {}),
        ...(capture.invoice_id ? { invoice_id: capture.invoice_id } : {}),
        ...(capture.custom_id ? { custom_field: capture.custom_id } : {}),
      },
    });
    // A reversal without a case; with one, the case's own rows below carry its money.
    if (capture.status === 'REVERSED' && !cases.has(order.id)) {
      out.push({
        at: Date.parse(capture.update_time),
        info: disputeMovement(account, capture.id, capture.custom_id, WP_EVENT_REVERSAL, {
          at: capture.update_time,
          minor: -(minor + (drift ? DRIFT_AMOUNT_MINOR : 0)),
          currency,
        }),
      });
    }
    if (drift) {
      out.push({
        at: Date.parse(capture.create_time),
        info: {
          ...base,
          transaction_id: driftRef(capture.id, 17),
          transaction_status: 'S',
          transaction_amount: money(minor, currency),
          custom_field: `unknown-${driftRef(capture.id, 12).toLowerCase()}`,
        },
      });
    }
  }
  for (const { kind, data } of objects) {
    if (kind !== 'capture_refunds') continue;
    const refunds = data as SimCaptureRefunds;
    if (drifting.has(refunds.orderId)) continue;
    for (const { refund, amountMinor } of refunds.refunds) {
      const status = REFUND_STATUS[refund.status];
      if (!status) continue;
      const currency = refund.amount.currency_code;
      out.push({
        at: Date.parse(refund.create_time),
        info: {
          paypal_account_id: account,
          transaction_id: refund.id,
          transaction_event_code: WP_EVENT_REFUND,
          transaction_initiation_date: paypalTime(refund.create_time),
          transaction_updated_date: paypalTime(refund.update_time),
          transaction_amount: {
            currency_code: currency,
            value: `-${minorToDecimal(amountMinor, currency)}`,
          },
          transaction_status: status,
          ...(refund.supplementary_data?.related_ids?.capture_id
            ? {
                paypal_reference_id: refund.supplementary_data.related_ids.capture_id,
                paypal_reference_id_type: 'TXN',
              }
            : {}),
          ...(refund.invoice_id ? { invoice_id: refund.invoice_id } : {}),
          ...(refund.custom_id ? { custom_field: refund.custom_id } : {}),
        },
      });
    }
  }
  for (const { kind, data } of objects) {
    if (kind !== 'dispute') continue;
    const { dispute, orderId } = data as { dispute: WpDispute; orderId: string };
    for (const t of caseMovements(account, dispute, drifting.has(orderId))) out.push(t);
  }
  return out.sort((a, b) => a.at - b.at);
}

/** One transaction of money taken back or given back over a capture. */
function disputeMovement(
  account: string,
  seed: string,
  customId: string | undefined,
  code: string,
  m: { at: string; minor: number; currency: string },
): WpTransactionInfo {
  return {
    paypal_account_id: account,
    transaction_id: driftRef(`${code}:${seed}`, 17),
    transaction_event_code: code,
    transaction_initiation_date: paypalTime(m.at),
    transaction_updated_date: paypalTime(m.at),
    transaction_amount: money(m.minor, m.currency),
    transaction_status: 'S',
    paypal_reference_id: seed,
    paypal_reference_id_type: 'TXN',
    ...(customId ? { custom_field: customId } : {}),
  };
}

/**
 * A case's money as PayPal's history shows it: the hold when it opens; once resolved the
 * hold released and, when the buyer won, the chargeback. Under reconciliation_drift the
 * hold takes DRIFT_AMOUNT_MINOR more than the case (amount_mismatch).
 */
function caseMovements(account: string, d: WpDispute, drift: boolean): SimTransaction[] {
  const currency = d.dispute_amount.currency_code;
  const minor = decimalToMinor(d.dispute_amount.value, currency) ?? 0;
  const held = minor + (drift ? DRIFT_AMOUNT_MINOR : 0);
  const customId = d.disputed_transactions?.[0]?.custom;
  const row = (code: string, at: string, amount: number): SimTransaction => ({
    at: Date.parse(at),
    info: disputeMovement(account, d.dispute_id, customId, code, { at, minor: amount, currency }),
  });
  const out = [row(WP_EVENT_DISPUTE_HOLD, d.create_time, -held)];
  if (d.status === 'RESOLVED') {
    out.push(row(WP_EVENT_DISPUTE_HOLD_RELEASE, d.update_time, held));
    if (d.dispute_outcome?.outcome_code !== 'RESOLVED_SELLER_FAVOUR') {
      out.push(row(WP_EVENT_CHARGEBACK, d.update_time, -minor));
    }
  }
  return out;
}
