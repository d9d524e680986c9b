/**
 * Examples of the OpenAPI document: real shapes, the values of docs/api.md's own examples. A
 * test validates each against its schema.
 */
import type { OutboundEventType } from '../../domain/events.js';

const PAYMENT_ID = '0123456789abcdef0123456789abcdef';
const REFUND_ID = 'fedcba9876543210fedcba9876543210';
const AT = '2025-01-02T03:04:05.678Z';
const LATER = '2025-01-02T03:12:40.123Z';
const METHODS = {
  idr_psp: ['qris', 'va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata'],
  card_psp: ['card_psp'],
  wallet_psp: ['wallet_psp'],
};

const paymentEvent = (event: OutboundEventType) => ({
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

const refundEvent = (event: OutboundEventType) => ({
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

const subscriptionEvent = (event: OutboundEventType) => ({
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

const FIGURES = {
  succeeded_count: 1,
  succeeded_minor: 10000,
  refunded_count: 1,
  refunded_minor: 5000,
  net_minor: 5000,
  failed_count: 0,
  canceled_count: 0,
  initiated_count: 0,
};

const APP = {
  app_id: 'app_1a7c63dbe650b204c67e4daf',
  name: 'My shop',
  mode: 'test',
  api_key: 'pk_e5db2c32dec39e8b5492f8c788daf0ec',
  webhook_url: 'https://shop.example/hooks/paygate',
  allowed_providers: ['idr_psp', 'card_psp', 'wallet_psp'],
  allowed_methods: METHODS,
  created_at: AT,
};

const ADMIN_REFUND = {
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

const DISPUTE = {
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

const EXCEPTION = {
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

export const EXAMPLES = {
  createPayment: {
    external_user_id: 'u1',
    email: 'u1@example.com',
    amount_minor: 10000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
    metadata: { order: 'A-17' },
    invoice_prefix: 'INV',
  },
  createdPayment: {
    payment_id: PAYMENT_ID,
    status: 'initiated',
    checkout_url: 'http://localhost:8080/sim/idr_psp/snap/v4/redirection/ebfd8a96',
    invoice_number: 'INV-000042',
  },
  payment: {
    payment_id: PAYMENT_ID,
    status: 'succeeded',
    amount_minor: 10000,
    currency: 'IDR',
    method: 'qris',
    provider: 'idr_psp',
    provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
    metadata: { order: 'A-17' },
    invoice_number: 'INV-000042',
    last_error: '',
    created_at: AT,
    updated_at: LATER,
  },
  events: {
    events: [
      {
        id: 'evt_1a7c63dbe650b204c67e4daf',
        event: 'payment.succeeded',
        created_at: LATER,
        payload: paymentEvent('payment.succeeded'),
        delivery: { status: 'delivered', attempts: 1, last_status_code: 200 },
      },
    ],
    has_more: false,
  },
  createRefund: { payment_id: PAYMENT_ID, amount_minor: 5000, reason: 'customer request' },
  adminRefund: { reason: 'goodwill' },
  refund: {
    refund_id: REFUND_ID,
    payment_id: PAYMENT_ID,
    status: 'succeeded',
    amount_minor: 5000,
    currency: 'IDR',
    provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
    reason: 'customer request',
    created_at: AT,
  },
  createApp: {
    name: 'My shop',
    mode: 'test',
    webhook_url: 'https://shop.example/hooks/paygate',
    allowed_providers: ['idr_psp', 'card_psp', 'wallet_psp'],
  },
  patchApp: {
    webhook_url: 'https://shop.example/hooks/paygate-v2',
    allowed_methods: { idr_psp: ['qris'] },
  },
  appWithSecrets: {
    app_id: 'app_1a7c63dbe650b204c67e4daf',
    name: 'My shop',
    mode: 'test',
    api_key: 'pk_e5db2c32dec39e8b5492f8c788daf0ec',
    signing_secret: 'sk_0000000000000000000000000000000000000000000000000000000000000001',
    webhook_secret: 'whsec_0000000000000000000000000000000000000000000000000000000000000002',
    webhook_url: 'https://shop.example/hooks/paygate',
    allowed_providers: ['idr_psp', 'card_psp', 'wallet_psp'],
    allowed_methods: METHODS,
    created_at: AT,
  },
  redeliver: { since: '2025-01-02', until: '2025-01-03T00:00:00Z', only_undelivered: true },
  canceled: {
    payment_id: PAYMENT_ID,
    status: 'canceled',
    amount_minor: 10000,
    currency: 'IDR',
    method: 'qris',
    provider: 'idr_psp',
    provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
    metadata: { order: 'A-17' },
    invoice_number: '',
    last_error: '',
    created_at: AT,
    updated_at: LATER,
  },
  apps: { apps: [APP] },
  app: APP,
  summary: {
    since: '2025-01-01T00:00:00.000Z',
    as_of: LATER,
    mode: '',
    by_app: [
      {
        app_id: APP.app_id,
        app_name: 'My shop',
        app_mode: 'test',
        ...FIGURES,
        by_currency: [{ currency: 'IDR', ...FIGURES }],
      },
    ],
    by_provider: [{ provider: 'idr_psp', ...FIGURES }],
    by_currency: [{ currency: 'IDR', ...FIGURES }],
  },
  timeseries: {
    days: 1,
    mode: 'test',
    buckets: [{ day: '2025-01-02', currency: 'IDR', succeeded_count: 1, succeeded_minor: 10000 }],
  },
  paymentList: {
    mode: '',
    payments: [
      {
        id: PAYMENT_ID,
        app_id: APP.app_id,
        mode: 'test',
        status: 'succeeded',
        amount_minor: 10000,
        currency: 'IDR',
        method: 'qris',
        provider: 'idr_psp',
        provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
        invoice_number: 'INV-000042',
        last_error: '',
        refund_status: 'succeeded',
        created_at: AT,
        updated_at: LATER,
        finalized_at: LATER,
        test_scenario: null,
      },
    ],
  },
  refundList: { mode: '', refunds: [ADMIN_REFUND] },
  paymentDetail: {
    id: PAYMENT_ID,
    app_id: APP.app_id,
    mode: 'test',
    status: 'succeeded',
    amount_minor: 10000,
    currency: 'IDR',
    method: 'qris',
    provider: 'idr_psp',
    provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
    external_user_id: 'u1',
    email: 'u1@example.com',
    return_url: 'https://shop.example/back',
    metadata: { order: 'A-17' },
    invoice_number: 'INV-000042',
    last_error: '',
    checkout_url: 'http://localhost:8080/sim/idr_psp/snap/v4/redirection/ebfd8a96',
    qr_string: null,
    qr_image_url: null,
    provider_deadline: null,
    finalized_at: LATER,
    subscription_id: null,
    parent_payment_id: null,
    created_at: AT,
    updated_at: LATER,
    refund: ADMIN_REFUND,
    disputes: [],
    inbound_events_count: 1,
    deliveries: [
      {
        delivery_id: 'dlv_1a7c63dbe650b204c67e4daf',
        event_id: 'evt_1a7c63dbe650b204c67e4daf',
        event_type: 'payment.succeeded',
        status: 'delivered',
        attempts_count: 1,
        last_status_code: 200,
        next_attempt_at: null,
        delivered_at: LATER,
        created_at: LATER,
        attempts: [
          {
            attempt: 1,
            status_code: 200,
            error: null,
            duration_ms: 12,
            started_at: LATER,
            outcome: 'delivered',
          },
        ],
      },
    ],
  },
  dispute: DISPUTE,
  disputes: { mode: '', disputes: [DISPUTE] },
  exception: EXCEPTION,
  exceptions: { exceptions: [EXCEPTION] },
  deliveries: {
    deliveries: [
      {
        delivery_id: 'dlv_1a7c63dbe650b204c67e4daf',
        event_id: 'evt_1a7c63dbe650b204c67e4daf',
        event_type: 'payment.succeeded',
        app_id: APP.app_id,
        payment_id: PAYMENT_ID,
        status: 'dead',
        attempts: 16,
        last_status_code: 500,
        last_error: 'HTTP 500',
        next_attempt_at: null,
        created_at: AT,
        updated_at: LATER,
      },
    ],
  },
  inboundEvents: {
    events: [
      {
        id: 7,
        provider: 'idr_psp',
        received_at: LATER,
        signature_valid: true,
        event_type: 'settlement',
        payment_id: PAYMENT_ID,
        outcome: 'finalized_succeeded',
        raw_body:
          '{"order_id":"0123456789abcdef0123456789abcdef","transaction_status":"settlement"}',
        raw_body_bytes: 83,
        raw_body_sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        raw_body_truncated: false,
      },
    ],
  },
  balances: {
    balances: [
      {
        provider: 'wallet_psp',
        mode: 'test',
        source: 'real',
        currency: 'EUR',
        available_minor: 12000,
        as_of: LATER,
      },
      {
        provider: 'idr_psp',
        mode: 'test',
        source: 'calculated',
        currency: 'IDR',
        available_minor: 10000,
      },
    ],
    errors: [],
  },
  payouts: {
    since: '2024-12-03T03:12:40.123Z',
    until: LATER,
    payouts: [
      { provider: 'idr_psp', source: 'api_unavailable', items: [] },
      {
        provider: 'wallet_psp',
        mode: 'test',
        source: 'real',
        items: [
          {
            id: 'PAYOUT-1',
            status: 'succeeded',
            currency: 'EUR',
            amount_minor: 12000,
            initiated_at: AT,
            updated_at: LATER,
          },
        ],
      },
    ],
  },
  stuck: {
    payments: [
      {
        id: PAYMENT_ID,
        app_id: APP.app_id,
        mode: 'live',
        status: 'initiated',
        amount_minor: 10000,
        currency: 'IDR',
        method: 'qris',
        provider: 'idr_psp',
        provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
        provider_deadline: LATER,
        created_at: AT,
        last_check: { at: LATER, asked: 'transaction status', learned: 'pending' },
      },
    ],
    refunds: [],
  },
  audit: {
    entries: [
      {
        id: 1,
        at: AT,
        action: 'app.create',
        target_type: 'app',
        target_id: APP.app_id,
        outcome: 'created',
        request_id: 'req-1',
        source_ip: '127.0.0.1',
        details: { name: 'My shop', mode: 'test' },
      },
    ],
  },
  event(kind: OutboundEventType) {
    if (kind.startsWith('payment.')) return paymentEvent(kind);
    if (kind.startsWith('refund.')) return refundEvent(kind);
    return subscriptionEvent(kind);
  },
};
