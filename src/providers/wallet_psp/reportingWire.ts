/**
 * Wire types of wallet_psp reporting, after PayPal's Balances API
 * (GET /v1/reporting/balances) and Transaction Search API (GET /v1/reporting/transactions).
 * Used by the adapter's reporting.ts and the simulator only.
 */
import type { WpLink, WpMoney } from './wire.js';

export interface WpBalanceDetail {
  currency: string;
  primary?: boolean;
  total_balance: WpMoney;
  available_balance?: WpMoney;
  withheld_balance?: WpMoney;
}

export interface WpBalancesResponse {
  balances: WpBalanceDetail[];
  account_id?: string;
  as_of_time: string;
  last_refresh_time?: string;
}

/** T0400: a general withdrawal from the account to the merchant's bank (a payout). */
export const WP_EVENT_WITHDRAWAL = 'T0400';
/** T0006: a payment received through the Orders (PayPal Checkout) API; T00xx are payments. */
export const WP_EVENT_CHECKOUT_PAYMENT = 'T0006';
/** T1107: a refund the merchant made of a payment. */
export const WP_EVENT_REFUND = 'T1107';
/**
 * Money PayPal takes back from, or gives back to, the merchant over a payment (PayPal's
 * transaction event codes, developer.paypal.com/docs/transaction-search/transaction-event-codes):
 * T1106 a payment reversal initiated by PayPal, T1110 a hold for a dispute investigation,
 * T1111 the cancellation of that hold (the case resolved), T1201 a chargeback, T1202 the
 * reversal of a chargeback.
 */
export const WP_EVENT_REVERSAL = 'T1106';
export const WP_EVENT_DISPUTE_HOLD = 'T1110';
export const WP_EVENT_DISPUTE_HOLD_RELEASE = 'T1111';
export const WP_EVENT_CHARGEBACK = 'T1201';
export const WP_EVENT_CHARGEBACK_REVERSAL = 'T1202';
export const WP_DISPUTE_EVENTS: readonly string[] = [
  WP_EVENT_REVERSAL,
  WP_EVENT_DISPUTE_HOLD,
  WP_EVENT_DISPUTE_HOLD_RELEASE,
  WP_EVENT_CHARGEBACK,
  WP_EVENT_CHARGEBACK_REVERSAL,
];

/** S success, P pending, V reversed, D denied. */
export type WpTransactionStatus = 'S' | 'P' | 'V' | 'D';

export interface WpTransactionInfo {
  paypal_account_id?: string;
  transaction_id: string;
  transaction_event_code: string;
  transaction_initiation_date: string;
  transaction_updated_date: string;
  /** Negative for money leaving the account. */
  transaction_amount: WpMoney;
  /** The fee's effect on the balance: negative where the provider took it. */
  fee_amount?: WpMoney;
  transaction_status: WpTransactionStatus;
  /** A refund: the transaction it refunds (a capture id). */
  paypal_reference_id?: string;
  paypal_reference_id_type?: string;
  /** The merchant's invoice_id and custom_id of the payment or refund. */
  invoice_id?: string;
  custom_field?: string;
}

export interface WpTransactionsResponse {
  transaction_details: { transaction_info: WpTransactionInfo }[];
  account_number?: string;
  start_date: string;
  end_date: string;
  last_refreshed_datetime?: string;
  page: number;
  total_items: number;
  total_pages: number;
  links?: WpLink[];
}

/** The provider refuses a transaction search over more than 31 days. */
export const WP_MAX_SEARCH_DAYS = 31;
export const WP_MAX_PAGE_SIZE = 500;
