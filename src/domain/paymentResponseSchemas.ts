/** Response schemas of the /v1 answers and the outbound events (docs/api.md#payments). */
import type { JsonSchema } from './schemas.js';
import type { OutboundEventType } from './events.js';
import {
  amount,
  arrayOf,
  disputeStatus,
  emptyWhenNull,
  from,
  hex32,
  metadata,
  nullable,
  object,
  paymentStatus,
  provider,
  ref,
  refundStatus,
  str,
  timestamp,
} from './schemaParts.js';

// ------------------------------------------------------------------------------------ /v1
// Payment and Refund are also how those answers are written: each property reads the row's
// column of its name, or the one `from` names; `emptyWhenNull` writes a null as ""
// (src/domain/serialize.ts). Timestamps are the rows' Dates, written as RFC 3339.

export const Payment = object(
  {
    payment_id: from('id', hex32("The gateway's id.")),
    status: paymentStatus,
    amount_minor: amount,
    currency: str('IDR, USD, EUR or GBP.', ['IDR']),
    method: str('As requested.', ['qris']),
    provider,
    provider_ref: emptyWhenNull(
      str('The provider\'s reference; "" until the registration is answered.'),
    ),
    metadata,
    invoice_number: emptyWhenNull(str('"" when none was asked for.')),
    last_error: str('The provider\'s text of the failure that failed the payment; "" otherwise.'),
    created_at: timestamp,
    updated_at: timestamp,
  },
  [],
  'docs/api.md#payment-object',
);

export const CreatedPayment = object(
  {
    payment_id: hex32("The gateway's id."),
    status: paymentStatus,
    checkout_url: str("Send the buyer here (the provider's hosted page)."),
    invoice_number: str('Only when invoice_prefix was given.'),
    qr_string: str('Only for qris when direct QR registration is on: the QRIS payload.'),
    qr_image_url: str('Same condition: an image of the QR code.'),
  },
  ['invoice_number', 'qr_string', 'qr_image_url'],
  'Clients must handle both shapes: without qr_string the buyer goes to checkout_url.',
);

export const Refund = object(
  {
    refund_id: from('id', hex32("The gateway's id.")),
    payment_id: hex32('The refunded payment.'),
    status: refundStatus,
    amount_minor: amount,
    currency: str(),
    provider_ref: emptyWhenNull(str('The provider\'s refund id; "" until it gave one.')),
    reason: str('As sent; "" by default.'),
    created_at: timestamp,
  },
  [],
  'docs/api.md#refund-object',
);

// ----------------------------------------------------------------------- outbound events

export const PAYMENT_EVENTS = ['payment.succeeded', 'payment.failed', 'payment.canceled'] as const;
export const REFUND_EVENTS = ['refund.succeeded', 'refund.failed'] as const;
export const SUBSCRIPTION_EVENTS = ['subscription.canceled', 'subscription.revoked'] as const;
export const DISPUTE_EVENTS = ['dispute.opened', 'dispute.closed'] as const;
/** Every outbound event kind, by the body schema that carries it. */
export const EVENT_KINDS = {
  PaymentEvent: PAYMENT_EVENTS,
  RefundEvent: REFUND_EVENTS,
  SubscriptionEvent: SUBSCRIPTION_EVENTS,
  DisputeEvent: DISPUTE_EVENTS,
} as const satisfies Record<string, readonly OutboundEventType[]>;

export const PaymentEvent = object(
  {
    event: { type: 'string', enum: [...PAYMENT_EVENTS] },
    payment_id: hex32('The payment.'),
    status: paymentStatus,
    amount: { ...amount, description: "The payment's amount_minor." },
    currency: str(),
    method: str(),
    provider,
    provider_ref: str('"" when unknown.'),
    timestamp: { ...timestamp, description: 'When the gateway recorded the change.' },
    metadata,
  },
  [],
  'docs/api.md#event-bodies',
);

export const RefundEvent = object(
  {
    event: { type: 'string', enum: [...REFUND_EVENTS] },
    refund_id: hex32('The refund.'),
    payment_id: hex32('The refunded payment.'),
    status: refundStatus,
    amount: { ...amount, description: "The refund's amount." },
    currency: str(),
    provider,
    provider_ref: str('The provider\'s refund id, "" when unknown.'),
    reason: str(),
    timestamp,
    metadata: { ...metadata, description: "The payment's metadata." },
  },
  [],
  'docs/api.md#event-bodies',
);

export const SubscriptionEvent = object(
  {
    event: { type: 'string', enum: [...SUBSCRIPTION_EVENTS] },
    payment_id: hex32("The subscription's first charge."),
    subscription_id: str("The provider's subscription id."),
    status: { type: 'string', enum: ['canceled', 'revoked'] },
    provider,
    timestamp,
    metadata: { ...metadata, description: "The first charge's, with the event's enrichment." },
  },
  [],
  'docs/api.md#event-bodies',
);

export const DisputeEvent = object(
  {
    event: { type: 'string', enum: [...DISPUTE_EVENTS] },
    dispute_id: hex32('The dispute.'),
    payment_id: hex32('The disputed payment.'),
    status: {
      ...disputeStatus,
      description: 'open in dispute.opened; won or lost in dispute.closed.',
    },
    amount: { ...amount, description: 'The amount the provider took back or holds.' },
    currency: str(),
    provider,
    provider_ref: str("The provider's case or transaction id."),
    reason: str("The provider's own words."),
    timestamp,
    metadata: { ...metadata, description: "The payment's metadata." },
  },
  [],
  'docs/api.md#event-bodies (listed in GET /v1/events; sent only to the webhook endpoints subscribed to them, never to webhook_url)',
);

export const OutboundEvent: JsonSchema = {
  oneOf: [ref('PaymentEvent'), ref('RefundEvent'), ref('SubscriptionEvent'), ref('DisputeEvent')],
};

export const EventList = object({
  events: arrayOf(
    object({
      id: str('The event id (X-PAY-Event-Id of its deliveries).', ['evt_1a7c63dbe650b204c67e4daf']),
      event: str(),
      created_at: timestamp,
      payload: {
        oneOf: [ref('OutboundEvent'), { type: 'null' }],
        description:
          'Exactly the body that was or will be delivered; null only when its stored form cannot be read back (a damaged row, whose delivery is given up as dead).',
      },
      delivery: nullable(
        object({
          status: { type: 'string', enum: ['pending', 'delivered', 'dead'] },
          attempts: { type: 'integer', minimum: 0 },
          last_status_code: nullable({ type: 'integer' }),
        }),
      ),
    }),
  ),
  has_more: {
    type: 'boolean',
    description:
      'More events follow the last one listed: ask again with after set to its id. A page shorter than limit can have more (the byte budget).',
  },
});
