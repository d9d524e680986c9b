/**
 * idr_psp wire format, modelled on Midtrans (Snap for the hosted page, Core API for direct QR
 * charges, status checks and HTTP notifications). Field names are the provider's; nothing here
 * leaves the idr_psp folder except through the adapter and the simulator speaking the same
 * protocol.
 */

/** Every transaction_status the provider documents; the mapping switch covers each one. */
export const TRANSACTION_STATUSES = [
  'authorize',
  'capture',
  'settlement',
  'pending',
  'deny',
  'cancel',
  'expire',
  'failure',
  'refund',
  'partial_refund',
  'chargeback',
  'partial_chargeback',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export function isTransactionStatus(v: unknown): v is TransactionStatus {
  return typeof v === 'string' && (TRANSACTION_STATUSES as readonly string[]).includes(v);
}

/** Our method slug -> how the provider names it (Snap enabled_payments, payment_type, bank). */
export interface MethodWire {
  snapPayment: string;
  paymentType: 'qris' | 'bank_transfer' | 'echannel';
  bank?: 'bca' | 'bni' | 'bri' | 'permata' | 'mandiri';
}

export const METHODS: Record<string, MethodWire> = {
  qris: { snapPayment: 'other_qris', paymentType: 'qris' },
  va_bca: { snapPayment: 'bca_va', paymentType: 'bank_transfer', bank: 'bca' },
  va_bni: { snapPayment: 'bni_va', paymentType: 'bank_transfer', bank: 'bni' },
  va_bri: { snapPayment: 'bri_va', paymentType: 'bank_transfer', bank: 'bri' },
  va_permata: { snapPayment: 'permata_va', paymentType: 'bank_transfer', bank: 'permata' },
  // Mandiri virtual accounts are Mandiri Bill Payment ("echannel") at this provider.
  va_mandiri: { snapPayment: 'echannel', paymentType: 'echannel', bank: 'mandiri' },
};

/** The provider's QR hard cap, and its default virtual-account lifetime. */
export const QR_EXPIRY_MINUTES = 20;
export const VA_EXPIRY_HOURS = 24;

export interface TransactionDetails {
  order_id: string;
  /** Whole rupiah; the provider takes an integer here and answers with "10000.00". */
  gross_amount: number;
}

export interface CustomerDetails {
  email?: string;
  first_name?: string;
}

/** POST /snap/v1/transactions */
export interface SnapTransactionRequest {
  transaction_details: TransactionDetails;
  customer_details?: CustomerDetails;
  enabled_payments: string[];
  callbacks?: { finish?: string };
  expiry?: { unit: 'minute' | 'hour' | 'day'; duration: number; start_time?: string };
  /** How long the Snap page itself stays open (default 24 hours at the provider). */
  page_expiry?: { unit: 'minute' | 'hour' | 'day'; duration: number };
  /** Merchant data the provider stores and echoes in notifications: a test-mode test_scenario. */
  custom_field1?: string;
}

export interface SnapTransactionResponse {
  token: string;
  redirect_url: string;
}

/** Snap's error body (400, 401). */
export interface SnapErrorResponse {
  error_messages: string[];
}

export interface ProviderAction {
  name: string;
  method: string;
  url: string;
}

/** POST /v2/charge (direct QR). */
export interface ChargeRequest {
  payment_type: 'qris';
  transaction_details: TransactionDetails;
  customer_details?: CustomerDetails;
  qris?: { acquirer?: string };
  custom_expiry?: { expiry_duration: number; unit: 'minute' | 'hour' | 'day'; order_time?: string };
  custom_field1?: string;
}

/** Core API answers (charge, status): HTTP status and body status_code can differ. */
export interface CoreResponse {
  status_code: string;
  status_message: string;
  validation_messages?: string[];
  id?: string;
}

export interface VaNumber {
  bank: string;
  va_number: string;
}

/** The transaction as the Core API and notifications describe it. */
export interface TransactionWire extends CoreResponse {
  transaction_id: string;
  order_id: string;
  merchant_id?: string;
  gross_amount: string;
  currency: string;
  payment_type: string;
  transaction_time: string;
  transaction_status: string;
  fraud_status?: string;
  expiry_time?: string;
  settlement_time?: string;
  actions?: ProviderAction[];
  qr_string?: string;
  acquirer?: string;
  va_numbers?: VaNumber[];
  permata_va_number?: string;
  bill_key?: string;
  biller_code?: string;
  /** QRIS: the wallet the buyer paid with (the acquirer's own, or another one through QRIS). */
  issuer?: string;
  /** QRIS, once paid: on-us when the buyer paid with the acquirer's own wallet, else off-us. */
  transaction_type?: string;
  /** Virtual accounts: each amount paid in, empty while unpaid. */
  payment_amounts?: { paid_at: string; amount: string }[];
  refund_amount?: string;
  refunds?: RefundEntryWire[];
  /** Echo of the registration's custom_field1. */
  custom_field1?: string;
}

/**
 * One refund or chargeback of a transaction, as status answers and notifications list them
 * (Midtrans keeps both in `refunds[]` under one id, `refund_chargeback_id`). A refund always
 * has a `refund_key` (the merchant's, or one Midtrans makes up); a chargeback, which nobody
 * asked the refund API for, has none (docs/providers/idr_psp.md, "Chargebacks").
 */
export interface RefundEntryWire {
  refund_chargeback_id?: number;
  refund_chargeback_uuid?: string;
  refund_amount?: string;
  refund_key?: string;
  created_at?: string;
  reason?: string;
  /**
   * Only on the notification of a refund the paying wallet declined: 'failed'. Completed
   * refunds carry no status (Midtrans lists completed refunds only).
   */
  status?: string;
}

/**
 * POST /v2/{order_id}/cancel on a settled transaction refunds it. The body is optional
 * (without one: a full refund under a key the provider picks).
 */
export interface CancelRefundRequest {
  /** Our refund_id: the same key answers with the original refund, never a second one. */
  refund_key: string;
  /** Whole rupiah; absent means the full gross amount. */
  amount: number;
  reason?: string;
}

/** The answer to a refund: status_code "200" done, "201" pending at the paying wallet. */
export interface RefundAnswerWire extends CoreResponse {
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
  /** "pending" while the paying wallet has not settled the refund. */
  refund_status?: string;
}

/** An HTTP notification: the transaction plus the signature over it. */
export interface NotificationWire extends TransactionWire {
  signature_key: string;
}

/**
 * How long after a payment's creation a Snap page nobody chose a channel on is surely gone:
 * its lifetime (sent as page_expiry and as the expiry counted from start_time) plus room for
 * a registration retried a little later and for clock skew.
 */
export const SNAP_PAGE_GRACE_MS = 15 * 60_000;

/** The provider's times: "YYYY-MM-DD HH:mm:ss" in Asia/Jakarta (UTC+7, no DST). */
export function formatProviderTime(ms: number): string {
  return new Date(ms + 7 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

export function parseProviderTime(s: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s);
  if (!m) return null;
  const utc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) - 7 * 3_600_000;
  return Number.isNaN(utc) ? null : new Date(utc);
}

let lastBasic: { serverKey: string; header: string } | undefined;

/** HTTP Basic with the server key as user name and an empty password (the last one kept). */
export function basicAuth(serverKey: string): string {
  if (lastBasic?.serverKey !== serverKey) {
    lastBasic = {
      serverKey,
      header: `Basic ${Buffer.from(`${serverKey}:`, 'utf8').toString('base64')}`,
    };
  }
  return lastBasic.header;
}
