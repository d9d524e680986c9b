/**
 * Wire types of wallet_psp capture refunds (PayPal Payments v2:
 * POST /v2/payments/captures/{capture_id}/refund). Kept beside wire.ts so the refund work
 * stays in its own files; used by the adapter and the simulator only.
 */
import type { WpMoney, WpRefund } from './wire.js';

/** Body of a capture refund. Every field is optional: an empty body refunds the rest. */
export interface WpRefundRequest {
  amount?: WpMoney;
  /** Shown to the buyer; at most 255 characters. */
  note_to_payer?: string;
  /** At most 127 characters each; echoed on the refund and its webhooks. */
  invoice_id?: string;
  custom_id?: string;
}

/** A refund as the provider answers it and sends it in refund webhooks. */
export interface WpRefundResource extends WpRefund {
  note_to_payer?: string;
  /** Why a refund is PENDING or FAILED (ECHECK, INSUFFICIENT_FUNDS ...). */
  status_details?: { reason: string };
}

export type WpRefundStatus = WpRefund['status'];

export const NOTE_TO_PAYER_MAX = 255;
export const REFUND_ID_FIELD_MAX = 127;
