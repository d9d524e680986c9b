/**
 * Wire types of wallet_psp disputes (PayPal Disputes v1: GET /v1/customer/disputes/{id},
 * https://developer.paypal.com/docs/api/customer-disputes/v1/, and the CUSTOMER.DISPUTE.*
 * webhooks whose resource is the same dispute object). PayPal's server SDK has no disputes
 * controller, so these are written from the API reference. Used by the adapter and the
 * simulator only.
 */
import type { WpLink, WpMoney } from './wire.js';

/** The dispute's progress; only RESOLVED has an outcome. */
export type WpDisputeStatus =
  | 'OPEN'
  | 'WAITING_FOR_BUYER_RESPONSE'
  | 'WAITING_FOR_SELLER_RESPONSE'
  | 'UNDER_REVIEW'
  | 'RESOLVED'
  | 'OTHER';

/** How a resolved dispute ended (dispute_outcome.outcome_code). */
export type WpDisputeOutcomeCode =
  | 'RESOLVED_BUYER_FAVOUR'
  | 'RESOLVED_SELLER_FAVOUR'
  | 'RESOLVED_WITH_PAYOUT'
  | 'CANCELED_BY_BUYER'
  | 'ACCEPTED'
  | 'DENIED'
  | 'NONE';

export interface WpDisputedTransaction {
  buyer_transaction_id?: string;
  /** The merchant's side of the disputed payment: for Orders v2, the capture id. */
  seller_transaction_id?: string;
  create_time?: string;
  transaction_status?: string;
  gross_amount?: WpMoney;
  invoice_number?: string;
  /** The custom field of the payment (for Orders v2: the purchase unit's custom_id). */
  custom?: string;
  seller_protection_eligible?: boolean;
}

export interface WpDispute {
  dispute_id: string;
  create_time: string;
  update_time: string;
  disputed_transactions?: WpDisputedTransaction[];
  reason: string;
  status: WpDisputeStatus | string;
  dispute_amount: WpMoney;
  dispute_outcome?: { outcome_code: WpDisputeOutcomeCode | string; amount_refunded?: WpMoney };
  /** Until when the merchant may answer (evidence, an offer). */
  seller_response_due_date?: string;
  dispute_life_cycle_stage?: 'INQUIRY' | 'CHARGEBACK' | 'PRE_ARBITRATION' | 'ARBITRATION' | string;
  dispute_channel?: 'INTERNAL' | 'EXTERNAL' | string;
  links?: WpLink[];
}
