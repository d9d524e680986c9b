/**
 * The wallet_psp simulator's side of the wire: PayPal's REST objects as its API reference
 * describes them (developer.paypal.com/docs/api: Orders v2, Payments v2, Disputes v1,
 * Transaction Search and Balances, Webhooks), only as far as the simulator writes them. Kept
 * apart from the gateway's adapter on purpose: the adapter's tests then check one reading of
 * PayPal's protocol against another, and against PayPal's own SDK.
 */

/** The currencies the simulated merchant account holds (and accepts orders in). */
export const WP_CURRENCIES = ['USD', 'EUR', 'GBP'] as const;

/** Webhook transmission headers and the request id header, lowercase as node reads them. */
export const WP_HEADER = {
  transmissionId: 'paypal-transmission-id',
  transmissionTime: 'paypal-transmission-time',
  transmissionSig: 'paypal-transmission-sig',
  certUrl: 'paypal-cert-url',
  authAlgo: 'paypal-auth-algo',
  requestId: 'paypal-request-id',
} as const;

/** PAYPAL-AUTH-ALGO: an RSA signature over SHA-256. */
export const WP_AUTH_ALGO = 'SHA256withRSA';

/** An amount: ISO 4217 code and a decimal string ("25.99"). */
export interface WpMoney {
  currency_code: string;
  value: string;
}

/** A HATEOAS link. */
export interface WpLink {
  href: string;
  rel: string;
  method?: string;
}

/** One entry of an error's details. */
export interface WpErrorDetail {
  field?: string;
  value?: string;
  location?: 'body' | 'path' | 'query' | 'header';
  issue: string;
  description?: string;
}

/** The REST API's error body. */
export interface WpError {
  name: string;
  message: string;
  debug_id: string;
  details?: WpErrorDetail[];
  links?: WpLink[];
}

/** A capture's status; REVERSED once taken back after completion (PAYMENT.CAPTURE.REVERSED). */
export type WpCaptureStatus =
  'COMPLETED' | 'DECLINED' | 'PARTIALLY_REFUNDED' | 'PENDING' | 'REFUNDED' | 'FAILED' | 'REVERSED';

/** A capture (Payments v2), inside its order's purchase unit and as a webhook resource. */
export interface WpCapture {
  id: string;
  status: WpCaptureStatus;
  status_details?: { reason: string };
  amount: WpMoney;
  custom_id?: string;
  invoice_id?: string;
  final_capture?: boolean;
  seller_receivable_breakdown?: {
    gross_amount?: WpMoney;
    paypal_fee?: WpMoney;
    net_amount?: WpMoney;
  };
  supplementary_data?: { related_ids?: { order_id?: string; capture_id?: string } };
  create_time: string;
  update_time: string;
  links?: WpLink[];
}

export interface WpPurchaseUnit {
  reference_id?: string;
  custom_id?: string;
  invoice_id?: string;
  description?: string;
  amount: WpMoney;
  payments?: { captures?: WpCapture[] };
}

/** An order (Orders v2). */
export interface WpOrder {
  id: string;
  intent: 'CAPTURE' | 'AUTHORIZE';
  status: 'CREATED' | 'SAVED' | 'APPROVED' | 'VOIDED' | 'COMPLETED' | 'PAYER_ACTION_REQUIRED';
  purchase_units: WpPurchaseUnit[];
  payment_source?: {
    paypal?: {
      email_address?: string;
      experience_context?: { return_url?: string; cancel_url?: string };
    };
  };
  payer?: { email_address?: string; payer_id?: string };
  create_time: string;
  update_time: string;
  links: WpLink[];
}

/** A capture refund (Payments v2), as answered and as a webhook resource. */
export interface WpRefundResource {
  id: string;
  status: 'CANCELLED' | 'FAILED' | 'PENDING' | 'COMPLETED';
  status_details?: { reason: string };
  amount: WpMoney;
  note_to_payer?: string;
  custom_id?: string;
  invoice_id?: string;
  supplementary_data?: { related_ids?: { order_id?: string; capture_id?: string } };
  create_time: string;
  update_time: string;
  links?: WpLink[];
}

/** The refund request's limits: note_to_payer 255 characters, invoice_id and custom_id 127. */
export const NOTE_TO_PAYER_MAX = 255;
export const REFUND_ID_FIELD_MAX = 127;

/** A dispute (Disputes v1), as GET /v1/customer/disputes/{id} and CUSTOMER.DISPUTE.* carry it. */
export interface WpDispute {
  dispute_id: string;
  create_time: string;
  update_time: string;
  disputed_transactions?: {
    buyer_transaction_id?: string;
    seller_transaction_id?: string;
    create_time?: string;
    transaction_status?: string;
    gross_amount?: WpMoney;
    invoice_number?: string;
    custom?: string;
    seller_protection_eligible?: boolean;
  }[];
  reason: string;
  status: string;
  dispute_amount: WpMoney;
  dispute_outcome?: { outcome_code: string; amount_refunded?: WpMoney };
  seller_response_due_date?: string;
  dispute_life_cycle_stage?: string;
  dispute_channel?: string;
  links?: WpLink[];
}

/** The resource types of the webhook events the simulator sends. */
export type WpResourceType = 'checkout-order' | 'capture' | 'refund' | 'dispute';

/** A webhook event (the body PayPal posts). */
export interface WpWebhookEvent {
  id: string;
  event_version: string;
  create_time: string;
  resource_type: WpResourceType;
  resource_version: string;
  event_type: string;
  summary: string;
  resource: unknown;
  links: WpLink[];
}

// Reporting: GET /v1/reporting/balances and /v1/reporting/transactions.

export interface WpBalancesResponse {
  balances: {
    currency: string;
    primary?: boolean;
    total_balance: WpMoney;
    available_balance?: WpMoney;
    withheld_balance?: WpMoney;
  }[];
  account_id?: string;
  as_of_time: string;
  last_refresh_time?: string;
}

/** Transaction event codes: T0006 a PayPal Checkout payment, T1107 a refund, T0400 a withdrawal. */
export const WP_EVENT_CHECKOUT_PAYMENT = 'T0006';
export const WP_EVENT_REFUND = 'T1107';
export const WP_EVENT_WITHDRAWAL = 'T0400';
/**
 * Money PayPal takes back over a payment, or gives back (its transaction event codes page):
 * T1106 a reversal PayPal initiated, T1110 a hold for a case, T1111 that hold released when
 * the case is resolved, T1201 a chargeback.
 */
export const WP_EVENT_REVERSAL = 'T1106';
export const WP_EVENT_DISPUTE_HOLD = 'T1110';
export const WP_EVENT_DISPUTE_HOLD_RELEASE = 'T1111';
export const WP_EVENT_CHARGEBACK = 'T1201';

/** S success, P pending, V reversed, D denied. */
export type WpTransactionStatus = 'S' | 'P' | 'V' | 'D';

export interface WpTransactionInfo {
  paypal_account_id?: string;
  transaction_id: string;
  transaction_event_code: string;
  transaction_initiation_date: string;
  transaction_updated_date: string;
  transaction_amount: WpMoney;
  fee_amount?: WpMoney;
  transaction_status: WpTransactionStatus;
  paypal_reference_id?: string;
  paypal_reference_id_type?: string;
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

/** Transaction search: at most 31 days per request, at most 500 items per page. */
export const WP_MAX_SEARCH_DAYS = 31;
export const WP_MAX_PAGE_SIZE = 500;
