/** The values the OpenAPI examples share: one payment, refund, app, dispute and exception. */
import type { OutboundEventType } from '../../domain/events.js';

export const PAYMENT_ID = '0123456789abcdef0123456789abcdef';
export const REFUND_ID = 'fedcba9876543210fedcba9876543210';
export const AT = '2025-01-02T03:04:05.678Z';
export const LATER = '2025-01-02T03:12:40.123Z';
export const METHODS = {
  idr_psp: ['qris', 'va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata'],
  card_psp: ['card_psp'],
  wallet_psp: ['wallet_psp'],
};

export const paymentEvent = (event: OutboundEventType) => ({
  event,
  payment_id: PAYMENT_ID,
  status: event.slice('payment.'.length),
  amount: 10000,
  currency: 'IDR',
  method: 'qris',
  provider: 'idr_psp',
  provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
  timestamp: LATER,
  metadata: { order: 'A-17' },
});

export const refundEvent = (event: OutboundEventType) => ({
  event,
  refund_id: REFUND_ID,
  payment_id: PAYMENT_ID,
  status: event.slice('refund.'.length),
  amount: 10000,
  currency: 'IDR',
  provider: 'idr_psp',
  provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
  reason: 'customer request',
  timestamp: LATER,
  metadata: { order: 'A-17' },
});

export const subscriptionEvent = (event: OutboundEventType) => ({
  event,
  payment_id: PAYMENT_ID,
  subscription_id: 'sub_7a1d2c3b',
  status: event.slice('subscription.'.length),
  provider: 'card_psp',
  timestamp: LATER,
  metadata: {
    card_psp_product_id: 'prod_basic',
    card_psp_subscription_id: 'sub_7a1d2c3b',
    card_psp_event_type: 'subscription.canceled',
  },
});

export const FIGURES = {
  succeeded_count: 1,
  succeeded_minor: 10000,
  refunded_count: 1,
  refunded_minor: 5000,
  net_minor: 5000,
  disputed_minor: 0,
  failed_count: 0,
  canceled_count: 0,
  initiated_count: 0,
};

export const APP = {
  app_id: 'app_1a7c63dbe650b204c67e4daf',
  name: 'My shop',
  mode: 'test',
  api_key: 'pk_e5db2c32dec39e8b5492f8c788daf0ec',
  webhook_url: 'https://shop.example/hooks/paygate',
  allowed_providers: ['idr_psp', 'card_psp', 'wallet_psp'],
  allowed_methods: METHODS,
  created_at: AT,
};

export const ADMIN_REFUND = {
  id: REFUND_ID,
  payment_id: PAYMENT_ID,
  app_id: APP.app_id,
  mode: 'test',
  status: 'succeeded',
  amount_minor: 5000,
  currency: 'IDR',
  provider: 'idr_psp',
  provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
  reason: 'customer request',
  last_error: '',
  succeeded_at: LATER,
  created_at: AT,
  updated_at: LATER,
};

export const DISPUTE = {
  dispute_id: '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
  payment_id: PAYMENT_ID,
  app_id: APP.app_id,
  provider: 'wallet_psp',
  provider_ref: 'PP-D-27803',
  status: 'open',
  amount_minor: 1999,
  currency: 'EUR',
  reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
  opened_at: LATER,
  closed_at: null,
  evidence_due_by: '2025-01-12T09:00:00.000Z',
  mode: 'test',
};

export const EXCEPTION = {
  id: 'abcdef0123456789abcdef0123456789',
  payment_id: PAYMENT_ID,
  app_id: APP.app_id,
  kind: 'paid_after_cancel',
  provider: 'card_psp',
  provider_ref: 'chk_5b2e',
  amount_minor: 1999,
  currency: 'USD',
  detected_at: LATER,
  resolution: 'manual',
  note: null,
  resolved_at: null,
};
