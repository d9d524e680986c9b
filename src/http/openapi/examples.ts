/**
 * Examples of the OpenAPI document: real shapes, the values of docs/api.md's own examples. A
 * test validates each against its schema.
 */
import type { OutboundEventType } from '../../domain/events.js';
import { ADMIN_EXAMPLES } from './adminExamples.js';
import {
  PAYMENT_ID,
  REFUND_ID,
  AT,
  LATER,
  METHODS,
  paymentEvent,
  refundEvent,
  subscriptionEvent,
  APP,
  DISPUTE,
} from './exampleData.js';

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
  ...ADMIN_EXAMPLES,
  event(kind: OutboundEventType) {
    if (kind.startsWith('payment.')) return paymentEvent(kind);
    if (kind.startsWith('refund.')) return refundEvent(kind);
    if (kind.startsWith('dispute.')) {
      return {
        event: kind,
        dispute_id: DISPUTE.dispute_id,
        payment_id: PAYMENT_ID,
        status: kind === 'dispute.opened' ? 'open' : 'lost',
        amount: DISPUTE.amount_minor,
        currency: DISPUTE.currency,
        provider: DISPUTE.provider,
        provider_ref: DISPUTE.provider_ref,
        reason: DISPUTE.reason,
        timestamp: LATER,
        metadata: { order: 'A-17' },
      };
    }
    return subscriptionEvent(kind);
  },
};
