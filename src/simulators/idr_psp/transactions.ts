import { createHash, randomInt, randomUUID } from 'node:crypto';
import { qrisPayload } from './qris.js';

// The simulated provider's transactions as it keeps them, and how they change. How it
// writes them on the wire is idr_psp/wire.ts.

/**
 * The provider's QR lifetime cap and its default virtual-account lifetime (Midtrans: a QRIS
 * custom_expiry is accepted up to 20 minutes; bank transfers stay open 24 hours by default).
 */
export const QR_EXPIRY_MINUTES = 20;
export const VA_EXPIRY_HOURS = 24;

/** The simulated provider's payment channels (what Snap's enabled_payments names). */
export const SIM_CHANNELS = {
  other_qris: { paymentType: 'qris', label: 'QRIS', bank: null },
  bca_va: { paymentType: 'bank_transfer', label: 'BCA virtual account', bank: 'bca' },
  bni_va: { paymentType: 'bank_transfer', label: 'BNI virtual account', bank: 'bni' },
  bri_va: { paymentType: 'bank_transfer', label: 'BRI virtual account', bank: 'bri' },
  permata_va: { paymentType: 'bank_transfer', label: 'Permata virtual account', bank: 'permata' },
  echannel: { paymentType: 'echannel', label: 'Mandiri Bill Payment', bank: 'mandiri' },
} as const;
export type SimChannel = keyof typeof SIM_CHANNELS;

export function isSimChannel(v: unknown): v is SimChannel {
  return typeof v === 'string' && Object.hasOwn(SIM_CHANNELS, v);
}

/** The statuses a simulated QR/VA transaction goes through. */
export type SimStatus =
  | 'pending'
  | 'settlement'
  | 'deny'
  | 'cancel'
  | 'expire'
  | 'refund'
  | 'partial_refund'
  | 'chargeback'
  | 'partial_chargeback';

/** Paid: settled, possibly refunded in part or in full since. */
export function isPaid(tx: SimTransaction): boolean {
  return (
    tx.transaction_status === 'settlement' ||
    tx.transaction_status === 'refund' ||
    tx.transaction_status === 'partial_refund'
  );
}

/**
 * The QRIS acquirer of this merchant account, and its own wallet: a buyer paying with it is
 * a same-wallet payment; any other wallet app paid through QRIS is cross-wallet.
 */
export const ACQUIRER_WALLET = 'gopay';

/** One refund of a simulated transaction (stored inside the transaction). */
export interface SimRefund {
  refund_key: string;
  refund_chargeback_id: number;
  amount: number;
  reason: string;
  /** pending: a cross-wallet refund the paying wallet has not settled yet. */
  status: 'pending' | 'succeeded' | 'failed';
  created_ms: number;
  settled_ms: number | null;
  failure_message: string | null;
  /** The answer to the request that created it, replayed for the same refund_key. */
  answer: { http: number; body: Record<string, unknown> };
  /**
   * The buyer's bank took this back (POST /payments/<ref>/chargeback): listed in refunds[]
   * like a refund, without a refund_key (nobody asked the refund API for it).
   */
  chargeback?: true;
}

/** One provider transaction as the simulator stores it (sim_objects, kind 'transaction'). */
export interface SimTransaction {
  order_id: string;
  transaction_id: string;
  /** Snap token for hosted transactions; null for direct Core API charges. */
  token: string | null;
  flow: 'snap' | 'charge';
  channel: SimChannel;
  gross_amount: number;
  currency: 'IDR';
  email: string | null;
  finish_url: string | null;
  merchant_id: string;
  transaction_status: SimStatus;
  status_message: string;
  transaction_time_ms: number;
  expiry_ms: number;
  settlement_time_ms: number | null;
  va_number: string | null;
  bill_key: string | null;
  biller_code: string | null;
  qr_string: string | null;
  /** QRIS, once paid: the wallet the buyer paid with. Absent on rows older than refunds. */
  wallet?: string | null;
  /**
   * Snap: the channels the page offers (enabled_payments; every channel when none was named).
   * Absent on rows from before several were allowed: only `channel`.
   */
  enabled?: SimChannel[];
  /**
   * Snap: false while the buyer has not chosen a channel on the page. Until then the provider
   * has no transaction: the status API answers 404 and nothing can be canceled or expired.
   * Absent on older rows: chosen.
   */
  chosen?: boolean;
  refunds?: SimRefund[];
  /** The registration's custom_field1 (a test_scenario in test mode), echoed back. */
  custom_field1?: string | null;
  /** Faults of the test_scenario already played (simulators/faults.ts). */
  faults_played?: string[];
}

/** sim_objects kind 'ref': a provider_ref (Snap token or transaction_id) -> its order. */
export interface SimRef {
  order_id: string;
}

export function merchantIdFor(serverKey: string): string {
  const digits = BigInt('0x' + createHash('sha256').update(serverKey).digest('hex').slice(0, 12));
  return `G${(digits % 1_000_000_000n).toString().padStart(9, '0')}`;
}

function digits(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(randomInt(10));
  return s;
}

/** A dynamic QRIS of this transaction (EMVCo MPM, idr_psp/qris.ts). */
function qrisOf(tx: { transaction_id: string; gross_amount: number; merchant_id: string }) {
  return qrisPayload({
    merchantPan: '93600914' + digits(11),
    merchantId: tx.merchant_id,
    amount: tx.gross_amount,
    reference: tx.transaction_id.replace(/-/g, ''),
  });
}

export function newTransaction(args: {
  orderId: string;
  flow: 'snap' | 'charge';
  channel: SimChannel;
  /** Snap: the channels offered; the buyer has chosen only when there is exactly one. */
  enabled?: SimChannel[];
  grossAmount: number;
  email: string | null;
  finishUrl: string | null;
  merchantId: string;
  now: number;
  /** QR only: the merchant's shorter expiry, in minutes (at most the 20-minute cap). */
  qrExpiryMinutes?: number;
  customField1?: string | null;
}): SimTransaction {
  const ch = SIM_CHANNELS[args.channel];
  const isQr = ch.paymentType === 'qris';
  const transactionId = randomUUID();
  const lifetimeMs = isQr
    ? (args.qrExpiryMinutes ?? QR_EXPIRY_MINUTES) * 60_000
    : VA_EXPIRY_HOURS * 3_600_000;
  const vaLength: Record<string, number> = { bca: 11, bni: 16, bri: 15, permata: 16 };
  const vaPrefix: Record<string, string> = { bca: '', bni: '988', bri: '', permata: '8778' };
  const bank = ch.bank;
  const enabled = args.enabled ?? [args.channel];
  return {
    ...(args.flow === 'snap' ? { enabled, chosen: enabled.length === 1 } : {}),
    order_id: args.orderId,
    transaction_id: transactionId,
    token: args.flow === 'snap' ? randomUUID() : null,
    flow: args.flow,
    channel: args.channel,
    gross_amount: args.grossAmount,
    currency: 'IDR',
    email: args.email,
    finish_url: args.finishUrl,
    merchant_id: args.merchantId,
    transaction_status: 'pending',
    status_message: 'Success, transaction is found',
    transaction_time_ms: args.now,
    expiry_ms: args.now + lifetimeMs,
    settlement_time_ms: null,
    va_number:
      bank && bank !== 'mandiri'
        ? (vaPrefix[bank] ?? '') + digits((vaLength[bank] ?? 16) - (vaPrefix[bank] ?? '').length)
        : null,
    bill_key: bank === 'mandiri' ? digits(12) : null,
    biller_code: bank === 'mandiri' ? '70012' : null,
    qr_string: isQr
      ? qrisOf({
          transaction_id: transactionId,
          gross_amount: args.grossAmount,
          merchant_id: args.merchantId,
        })
      : null,
    custom_field1: args.customField1 ?? null,
  };
}

/** Pending past its expiry: what the provider reports (and sweeps) as expire. */
export function isDue(tx: SimTransaction, now: number): boolean {
  return tx.transaction_status === 'pending' && now >= tx.expiry_ms && isChosen(tx);
}

/** A Snap order whose buyer has not chosen a channel yet is no transaction at the provider. */
export function isChosen(tx: SimTransaction): boolean {
  return tx.chosen !== false;
}

/**
 * The buyer chooses a channel on the Snap page: the transaction comes into being with that
 * channel's payment details (VA number, bill key or QR) and its expiry counts from now.
 */
export function choose(tx: SimTransaction, channel: SimChannel, now: number): SimTransaction {
  const fresh = newTransaction({
    orderId: tx.order_id,
    flow: 'snap',
    channel,
    grossAmount: tx.gross_amount,
    email: tx.email,
    finishUrl: tx.finish_url,
    merchantId: tx.merchant_id,
    now,
  });
  const lifetimeMs = tx.expiry_ms - tx.transaction_time_ms;
  const isQr = SIM_CHANNELS[channel].paymentType === 'qris';
  return {
    ...tx,
    channel,
    chosen: true,
    transaction_time_ms: now,
    // A QR keeps the merchant's (shorter) QR expiry only when it was asked for the QR itself.
    expiry_ms:
      now + (isQr && lifetimeMs <= QR_EXPIRY_MINUTES * 60_000 ? lifetimeMs : fresh.expiry_ms - now),
    va_number: fresh.va_number,
    bill_key: fresh.bill_key,
    biller_code: fresh.biller_code,
    qr_string: fresh.qr_string
      ? qrisOf({
          transaction_id: tx.transaction_id,
          gross_amount: tx.gross_amount,
          merchant_id: tx.merchant_id,
        })
      : null,
  };
}

export function expired(tx: SimTransaction): SimTransaction {
  const isQr = SIM_CHANNELS[tx.channel].paymentType === 'qris';
  return {
    ...tx,
    transaction_status: 'expire',
    status_message: isQr
      ? `Transaction expired: QR not paid within ${Math.round((tx.expiry_ms - tx.transaction_time_ms) / 60_000)} minutes`
      : `Transaction expired: virtual account not paid within ${VA_EXPIRY_HOURS} hours`,
  };
}

/**
 * The buyer's (or the tester's) action on a pending transaction. wallet: for QRIS, the wallet
 * app the buyer pays with (default the acquirer's own); ignored for virtual accounts.
 */
export function applyAction(
  tx: SimTransaction,
  action: 'pay' | 'fail' | 'cancel' | 'expire',
  now: number,
  wallet: string | null = null,
): SimTransaction {
  switch (action) {
    case 'pay':
      return {
        ...tx,
        transaction_status: 'settlement',
        status_message: 'midtrans payment notification',
        settlement_time_ms: now,
        wallet: tx.qr_string !== null ? (wallet ?? ACQUIRER_WALLET) : null,
      };
    case 'fail':
      return {
        ...tx,
        transaction_status: 'deny',
        status_message: 'Transaction denied by the issuer (simulated decline)',
      };
    case 'cancel':
      return {
        ...tx,
        transaction_status: 'cancel',
        status_message: 'Transaction canceled by the buyer',
      };
    case 'expire':
      return expired(tx);
  }
}

/** How the 409 for an action on a finished transaction names its state. */
export const FINISHED_WORD: Record<Exclude<SimStatus, 'pending'>, string> = {
  settlement: 'settled',
  deny: 'denied',
  cancel: 'canceled',
  expire: 'expired',
  refund: 'refunded',
  partial_refund: 'partially refunded',
  chargeback: 'charged back',
  partial_chargeback: 'partially charged back',
};

/** Completed refunds in the order they completed (the last one is the newest event). */
export function completedRefunds(tx: SimTransaction): SimRefund[] {
  return (tx.refunds ?? [])
    .filter((r) => r.status === 'succeeded')
    .sort((a, b) => (a.settled_ms ?? 0) - (b.settled_ms ?? 0));
}

export function refundedAmount(tx: SimTransaction): number {
  return completedRefunds(tx).reduce((sum, r) => sum + r.amount, 0);
}

/** "Rp 10.000": rupiah have no decimals; Indonesian thousands separator. */
export function rupiahText(amount: number): string {
  return `Rp ${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
}
