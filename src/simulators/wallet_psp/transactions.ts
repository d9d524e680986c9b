/**
 * The wallet_psp simulator's transaction history (PayPal's transaction search): every capture
 * as a T0006 payment with its fee, every capture refund as a T1107, built from the
 * simulator's own orders and refunds at each call, with reconciliation_drift applied
 * (simulators/drift.ts).
 */
import type { Queryable } from '../db/pool.js';
import { listWalletMoneyObjects } from '../db/reads.js';
import { decimalToMinor, minorToDecimal } from '../money.js';
import {
  WP_EVENT_CHECKOUT_PAYMENT,
  WP_EVENT_REFUND,
  type WpTransactionInfo,
  type WpTransactionStatus,
} from './wire.js';
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
  return out.sort((a, b) => a.at - b.at);
}
