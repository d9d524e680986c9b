import { createHash } from 'node:crypto';
import {
  completedRefunds,
  refundedAmount,
  ACQUIRER_WALLET,
  SIM_CHANNELS,
  type SimRefund,
  type SimStatus,
  type SimTransaction,
} from './transactions.js';

/**
 * The idr_psp simulator's side of the wire, written from Midtrans' public documentation
 * (docs.midtrans.com: Core API transaction status, HTTP notifications, refunds), not from the
 * gateway's adapter: the adapter's tests then compare two readings of the same protocol, and
 * a mistake in one is caught by the other.
 */

/** Midtrans' times: "YYYY-MM-DD HH:mm:ss" in Jakarta time (WIB, UTC+7, no daylight saving). */
export function providerTime(ms: number): string {
  const wib = new Date(ms + 7 * 60 * 60 * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${wib.getUTCFullYear()}-${p(wib.getUTCMonth() + 1)}-${p(wib.getUTCDate())} ` +
    `${p(wib.getUTCHours())}:${p(wib.getUTCMinutes())}:${p(wib.getUTCSeconds())}`
  );
}

/** Midtrans writes amounts as decimal strings with two places: 10000 -> "10000.00". */
export function amountText(rupiah: number): string {
  return `${rupiah}.00`;
}

/**
 * The Authorization header Midtrans expects: HTTP Basic with the server key as the user name
 * and an empty password ("Basic " + base64(server_key + ":")).
 */
export function expectedAuthorization(serverKey: string): string {
  return 'Basic ' + Buffer.from(serverKey + ':').toString('base64');
}

/** A link of the transaction's `actions` (generate-qr-code for QRIS). */
export interface ActionLink {
  name: string;
  method: string;
  url: string;
}

/** One entry of a transaction's `refunds` list (refunds and chargebacks alike). */
export interface RefundEntry {
  refund_chargeback_id: number;
  refund_amount: string;
  refund_key?: string;
  created_at: string;
  reason?: string;
  /** Only on the notification of a refund the paying wallet declined. */
  status?: 'failed';
}

/** The transaction as the status API, a charge answer and a notification write it. */
export interface TransactionBody {
  status_code: string;
  status_message: string;
  transaction_id: string;
  order_id: string;
  merchant_id: string;
  gross_amount: string;
  currency: string;
  payment_type: string;
  transaction_time: string;
  transaction_status: string;
  fraud_status: string;
  expiry_time: string;
  settlement_time?: string;
  acquirer?: string;
  issuer?: string;
  transaction_type?: 'on-us' | 'off-us';
  qr_string?: string;
  actions?: ActionLink[];
  payment_amounts?: { paid_at: string; amount: string }[];
  permata_va_number?: string;
  va_numbers?: { bank: string; va_number: string }[];
  bill_key?: string;
  biller_code?: string;
  custom_field1?: string;
  refund_amount?: string;
  refunds?: RefundEntry[];
}

/** An HTTP notification: the transaction and its signature_key. */
export interface NotificationBody extends TransactionBody {
  signature_key: string;
}

/** The answer to a refund request. */
export interface RefundAnswerBody {
  status_code: string;
  status_message: string;
  transaction_id: string;
  order_id: string;
  gross_amount: string;
  currency: string;
  payment_type: string;
  transaction_time: string;
  transaction_status: string;
  refund_chargeback_id: number;
  refund_amount: string;
  refund_key: string;
  refund_status?: 'pending';
}

/** Notification status codes; the status API answers an expired transaction with 407. */
function statusCode(status: SimStatus, forStatusApi: boolean): string {
  switch (status) {
    case 'pending':
      return '201';
    case 'settlement':
    case 'cancel':
    case 'refund':
    case 'partial_refund':
    case 'chargeback':
    case 'partial_chargeback':
      return '200';
    case 'deny':
      return '202';
    case 'expire':
      return forStatusApi ? '407' : '202';
  }
}

export function qrCodeUrl(simBase: string, tx: SimTransaction): string {
  return `${simBase}/v2/qris/${tx.transaction_id}/qr-code`;
}

/** The transaction in the provider's words (status API, charge answer, notification body). */
export function transactionWire(
  tx: SimTransaction,
  opts: { simBase: string; forStatusApi: boolean },
): TransactionBody {
  const ch = SIM_CHANNELS[tx.channel];
  const out: TransactionBody = {
    status_code: statusCode(tx.transaction_status, opts.forStatusApi),
    status_message: tx.status_message,
    transaction_id: tx.transaction_id,
    order_id: tx.order_id,
    merchant_id: tx.merchant_id,
    gross_amount: amountText(tx.gross_amount),
    currency: tx.currency,
    payment_type: ch.paymentType,
    transaction_time: providerTime(tx.transaction_time_ms),
    transaction_status: tx.transaction_status,
    fraud_status: 'accept',
    expiry_time: providerTime(tx.expiry_ms),
  };
  if (tx.settlement_time_ms !== null) {
    out.settlement_time = providerTime(tx.settlement_time_ms);
  }
  if (tx.qr_string !== null) {
    out.acquirer = ACQUIRER_WALLET;
    if (tx.wallet) {
      out.issuer = tx.wallet;
      out.transaction_type = tx.wallet === ACQUIRER_WALLET ? 'on-us' : 'off-us';
    }
    out.qr_string = tx.qr_string;
    const actions: ActionLink[] = [
      { name: 'generate-qr-code', method: 'GET', url: qrCodeUrl(opts.simBase, tx) },
    ];
    out.actions = actions;
  }
  if (ch.paymentType === 'bank_transfer') {
    out.payment_amounts =
      tx.settlement_time_ms === null
        ? []
        : [
            {
              paid_at: providerTime(tx.settlement_time_ms),
              amount: amountText(tx.gross_amount),
            },
          ];
  }
  if (ch.bank === 'permata' && tx.va_number) out.permata_va_number = tx.va_number;
  else if (ch.bank && ch.bank !== 'mandiri' && tx.va_number) {
    out.va_numbers = [{ bank: ch.bank, va_number: tx.va_number }];
  }
  if (tx.bill_key && tx.biller_code) {
    out.bill_key = tx.bill_key;
    out.biller_code = tx.biller_code;
  }
  if (tx.custom_field1) out.custom_field1 = tx.custom_field1;
  const done = completedRefunds(tx);
  if (done.length > 0) {
    out.refund_amount = amountText(refundedAmount(tx));
    out.refunds = done.map(refundEntry);
  }
  return out;
}

export function refundEntry(r: SimRefund): RefundEntry {
  return {
    refund_chargeback_id: r.refund_chargeback_id,
    refund_amount: amountText(r.amount),
    ...(r.chargeback ? {} : { refund_key: r.refund_key }),
    created_at: providerTime(r.created_ms),
    ...(r.reason ? { reason: r.reason } : {}),
  };
}

/** SHA-512 hex of order_id + status_code + gross_amount + server key (notifications, status). */
export function signatureKey(
  w: { order_id: string; status_code: string; gross_amount: string },
  serverKey: string,
): string {
  return createHash('sha512')
    .update(`${w.order_id}${w.status_code}${w.gross_amount}${serverKey}`)
    .digest('hex');
}

/**
 * The HTTP notification exactly as the provider sends it, signed with the server key:
 * signature_key = SHA-512 hex of order_id + status_code + gross_amount + server key.
 * (Computed here on its own rather than with the adapter's code, so the integration test that
 * verifies one with the other compares two implementations.)
 */
export function buildIdrNotification(
  tx: SimTransaction,
  serverKey: string,
  simBase: string,
  /** A refund the paying wallet declined: the transaction stays as it is, the event names it. */
  failedRefund?: SimRefund,
): NotificationBody {
  const w = transactionWire(tx, { simBase, forStatusApi: false });
  if (failedRefund) {
    w.status_code = '202';
    w.status_message = failedRefund.failure_message ?? 'Refund failed';
    w.refunds = [...(w.refunds ?? []), { ...refundEntry(failedRefund), status: 'failed' }];
  }
  const signature_key = signatureKey(w, serverKey);
  // The provider's field order: time and status first, signature before the payment details.
  const notification: NotificationBody = Object.assign(
    {
      transaction_time: w.transaction_time,
      transaction_status: w.transaction_status,
      transaction_id: w.transaction_id,
      status_message: w.status_message,
      status_code: w.status_code,
      signature_key,
    },
    w,
  );
  // Notifications carry neither the QR payload nor the API's action links.
  delete notification.actions;
  delete notification.qr_string;
  return notification;
}
