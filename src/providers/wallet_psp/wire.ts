/**
 * Wire types of wallet_psp, named after the real provider it follows (PayPal REST: OAuth2
 * client credentials, Orders v2, Webhooks v1). Used only by the adapter in this folder and
 * by the wallet_psp simulator, which speaks the same protocol.
 */

export const WP_CURRENCIES = ['USD', 'EUR', 'GBP'] as const;

/** Headers of a webhook transmission (lowercase, as node delivers them). */
export const WP_HEADER = {
  transmissionId: 'paypal-transmission-id',
  transmissionTime: 'paypal-transmission-time',
  transmissionSig: 'paypal-transmission-sig',
  certUrl: 'paypal-cert-url',
  authAlgo: 'paypal-auth-algo',
  requestId: 'paypal-request-id',
} as const;

export const WP_AUTH_ALGO = 'SHA256withRSA';

export interface WpTokenResponse {
  scope?: string;
  access_token: string;
  token_type: 'Bearer';
  app_id?: string;
  expires_in: number;
  nonce?: string;
}

/** Errors of the token endpoint (RFC 6749 shape). */
export interface WpOAuthError {
  error: string;
  error_description?: string;
}

/** Errors of the REST API. */
export interface WpErrorDetail {
  field?: string;
  value?: string;
  location?: 'body' | 'path' | 'query' | 'header';
  issue: string;
  description?: string;
}

export interface WpError {
  name: string;
  message: string;
  debug_id: string;
  details?: WpErrorDetail[];
  links?: WpLink[];
}

export interface WpLink {
  href: string;
  rel: string;
  /** The HTTP method to follow the link with (an upper-case verb, or REDIRECT); never read. */
  method?: string;
}

export interface WpMoney {
  currency_code: string;
  value: string;
}

export type WpOrderStatus =
  'CREATED' | 'SAVED' | 'APPROVED' | 'VOIDED' | 'COMPLETED' | 'PAYER_ACTION_REQUIRED';

/**
 * REVERSED: taken back after completion (a chargeback or a reversal), the state
 * PAYMENT.CAPTURE.REVERSED announces; PayPal's SDK enum lacks it but accepts unknown values.
 */
export type WpCaptureStatus =
  'COMPLETED' | 'DECLINED' | 'PARTIALLY_REFUNDED' | 'PENDING' | 'REFUNDED' | 'FAILED' | 'REVERSED';

export interface WpRelatedIds {
  order_id?: string;
  capture_id?: string;
}

export interface WpCapture {
  id: string;
  status: WpCaptureStatus;
  status_details?: { reason: string };
  amount: WpMoney;
  custom_id?: string;
  invoice_id?: string;
  final_capture?: boolean;
  /** What the seller keeps: gross, PayPal's fee and net (sent once the capture completes). */
  seller_receivable_breakdown?: {
    gross_amount?: WpMoney;
    paypal_fee?: WpMoney;
    net_amount?: WpMoney;
  };
  supplementary_data?: { related_ids?: WpRelatedIds };
  create_time: string;
  update_time: string;
  links?: WpLink[];
}

export interface WpRefund {
  id: string;
  status: 'CANCELLED' | 'FAILED' | 'PENDING' | 'COMPLETED';
  amount: WpMoney;
  custom_id?: string;
  invoice_id?: string;
  supplementary_data?: { related_ids?: WpRelatedIds };
  create_time: string;
  update_time: string;
  links?: WpLink[];
}

export interface WpPurchaseUnit {
  reference_id?: string;
  custom_id?: string;
  invoice_id?: string;
  /** Free text (127 characters); in test mode the payment's test_scenario. */
  description?: string;
  amount: WpMoney;
  payments?: { captures?: WpCapture[] };
}

export interface WpExperienceContext {
  return_url?: string;
  cancel_url?: string;
}

export interface WpPaymentSource {
  paypal?: { email_address?: string; experience_context?: WpExperienceContext };
}

export interface WpCreateOrderRequest {
  intent: 'CAPTURE' | 'AUTHORIZE';
  purchase_units: WpPurchaseUnit[];
  payment_source?: WpPaymentSource;
}

export interface WpOrder {
  id: string;
  intent: 'CAPTURE' | 'AUTHORIZE';
  status: WpOrderStatus;
  purchase_units: WpPurchaseUnit[];
  payment_source?: WpPaymentSource;
  payer?: { email_address?: string; payer_id?: string };
  create_time: string;
  update_time: string;
  links: WpLink[];
}

export type WpResourceType = 'checkout-order' | 'capture' | 'refund' | 'dispute';

/** POST /v1/notifications/verify-webhook-signature: the provider checks a delivery itself. */
export interface WpVerifySignatureRequest {
  auth_algo: string;
  cert_url: string;
  transmission_id: string;
  transmission_sig: string;
  transmission_time: string;
  webhook_id: string;
  webhook_event: unknown;
}

export interface WpVerifySignatureResponse {
  verification_status: 'SUCCESS' | 'FAILURE';
}

export interface WpWebhookEvent<R = unknown> {
  id: string;
  event_version: string;
  create_time: string;
  resource_type: WpResourceType | string;
  resource_version?: string;
  event_type: string;
  summary: string;
  resource: R;
  links?: WpLink[];
}
