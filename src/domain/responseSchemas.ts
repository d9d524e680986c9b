/**
 * Schemas of what the gateway answers and sends (JSON Schema 2020-12). They describe the
 * bodies in the OpenAPI document (src/http/openapi/); the integration tests check every
 * answer they receive against that document, so a field added, dropped or retyped in a
 * service fails a test until the schema says so. Objects are closed (additionalProperties:
 * false) for that reason; metadata and audit details are the app's and operator's own.
 */
import { MAX_SAFE_AMOUNT, type JsonSchema } from './schemas.js';
import type { OutboundEventType } from './events.js';
import { LEDGER_TYPES, MODES, PAYMENT_STATUSES, PROVIDERS } from './types.js';

const str = (description?: string, examples?: readonly unknown[]): JsonSchema => ({
  type: 'string',
  ...(description ? { description } : {}),
  ...(examples ? { examples } : {}),
});
const nullable = (s: JsonSchema): JsonSchema => ({
  ...s,
  type: [s.type as 'string' | 'integer' | 'object' | 'boolean', 'null'],
  ...(s.enum ? { enum: [...s.enum, null] } : {}),
});

const hex32 = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^[0-9a-f]{32}$',
  description,
  examples: ['0123456789abcdef0123456789abcdef'],
});
const timestamp: JsonSchema = {
  type: 'string',
  format: 'date-time',
  description: 'RFC 3339 in UTC with milliseconds.',
  examples: ['2025-01-02T03:04:05.678Z'],
};
const amount: JsonSchema = { type: 'integer', minimum: 0, maximum: MAX_SAFE_AMOUNT };
const mode: JsonSchema = { type: 'string', enum: [...MODES] };
const provider: JsonSchema = { type: 'string', enum: [...PROVIDERS] };
const paymentStatus: JsonSchema = { type: 'string', enum: [...PAYMENT_STATUSES] };
const refundStatus: JsonSchema = { type: 'string', enum: ['initiated', 'succeeded', 'failed'] };
const metadata: JsonSchema = {
  type: 'object',
  description: "The app's metadata plus provider enrichment (docs/api.md#metadata-enrichment).",
};
/**
 * A sum of minor units (D14, docs/api.md#money): a JSON integer with its exact digits at any
 * size, so no maximum; a JavaScript reader needs a big-integer-aware parser past 2^53 - 1.
 */
const minorSum: JsonSchema = {
  type: 'integer',
  description:
    'Exact at any size: past 2^53 - 1 read it with a big-integer-aware JSON parser (docs/api.md#money).',
  examples: [12000],
};

function object(
  properties: Record<string, JsonSchema>,
  optional: readonly string[] = [],
  description?: string,
): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
    additionalProperties: false,
  };
}
const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

// ------------------------------------------------------------------------------------ /v1

const Payment = object(
  {
    payment_id: hex32("The gateway's id."),
    status: paymentStatus,
    amount_minor: amount,
    currency: str('IDR, USD, EUR or GBP.', ['IDR']),
    method: str('As requested.', ['qris']),
    provider,
    provider_ref: str('The provider\'s reference; "" until the registration is answered.'),
    metadata,
    invoice_number: str('"" when none was asked for.'),
    last_error: str('The provider\'s text of the failure that failed the payment; "" otherwise.'),
    created_at: timestamp,
    updated_at: timestamp,
  },
  [],
  'docs/api.md#payment-object',
);

const CreatedPayment = object(
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

const Refund = object(
  {
    refund_id: hex32("The gateway's id."),
    payment_id: hex32('The refunded payment.'),
    status: refundStatus,
    amount_minor: amount,
    currency: str(),
    provider_ref: str('The provider\'s refund id; "" until it gave one.'),
    reason: str('As sent; "" by default.'),
    created_at: timestamp,
  },
  [],
  'docs/api.md#refund-object',
);

// ----------------------------------------------------------------------- outbound events

const PAYMENT_EVENTS = ['payment.succeeded', 'payment.failed', 'payment.canceled'] as const;
const REFUND_EVENTS = ['refund.succeeded', 'refund.failed'] as const;
const SUBSCRIPTION_EVENTS = ['subscription.canceled', 'subscription.revoked'] as const;
const DISPUTE_EVENTS = ['dispute.opened', 'dispute.closed'] as const;
/** Every outbound event kind, by the body schema that carries it. */
export const EVENT_KINDS = {
  PaymentEvent: PAYMENT_EVENTS,
  RefundEvent: REFUND_EVENTS,
  SubscriptionEvent: SUBSCRIPTION_EVENTS,
  DisputeEvent: DISPUTE_EVENTS,
} as const satisfies Record<string, readonly OutboundEventType[]>;

const PaymentEvent = object(
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

const RefundEvent = object(
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

const SubscriptionEvent = object(
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

const disputeStatus: JsonSchema = { type: 'string', enum: ['open', 'won', 'lost'] };

const DisputeEvent = object(
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
  'docs/api.md#event-bodies (stored and listed in GET /v1/events, sent to no URL yet)',
);

const OutboundEvent: JsonSchema = {
  oneOf: [ref('PaymentEvent'), ref('RefundEvent'), ref('SubscriptionEvent'), ref('DisputeEvent')],
};

const EventList = object({
  events: arrayOf(
    object({
      id: str('The event id (X-PAY-Event-Id of its deliveries).', ['evt_1a7c63dbe650b204c67e4daf']),
      event: str(),
      created_at: timestamp,
      payload: {
        ...ref('OutboundEvent'),
        description: 'Exactly the body that was or will be delivered.',
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

// ---------------------------------------------------------------------------------- admin

const appProps = {
  app_id: str('app_ followed by 24 lowercase hex characters.', ['app_1a7c63dbe650b204c67e4daf']),
  name: str(),
  mode,
  api_key: str('pk_ followed by 32 lowercase hex characters.'),
  webhook_url: nullable(str()),
  allowed_providers: arrayOf(provider),
  allowed_methods: {
    type: 'object',
    additionalProperties: arrayOf(str()),
    description: "Provider slug to that provider's enabled methods.",
  },
  created_at: timestamp,
} satisfies Record<string, JsonSchema>;

const App = object(appProps, [], 'An app without its secrets.');
const AppWithSecrets = object(
  {
    app_id: appProps.app_id,
    name: appProps.name,
    mode,
    api_key: appProps.api_key,
    signing_secret: str('sk_ followed by 64 lowercase hex characters. Shown only here.'),
    webhook_secret: str('whsec_ followed by 64 lowercase hex characters. Shown only here.'),
    webhook_url: appProps.webhook_url,
    allowed_providers: appProps.allowed_providers,
    allowed_methods: appProps.allowed_methods,
    created_at: timestamp,
  },
  [],
  'The only answers that show the secrets: create and regenerate-keys.',
);

const figures = {
  succeeded_count: { type: 'integer', minimum: 0 },
  succeeded_minor: minorSum,
  refunded_count: { type: 'integer', minimum: 0 },
  refunded_minor: minorSum,
  net_minor: {
    ...minorSum,
    description:
      'The sum of the ledger over the window (docs/api.md#ledger): charges, late charges and dispute reversals in, refunds and disputes out. Exact at any size.',
  },
  disputed_minor: {
    ...minorSum,
    description:
      'What disputes took back over the window, net of the disputes won (docs/api.md#ledger). Exact at any size.',
  },
  failed_count: { type: 'integer', minimum: 0 },
  canceled_count: { type: 'integer', minimum: 0 },
  initiated_count: { type: 'integer', minimum: 0 },
} satisfies Record<string, JsonSchema>;
const currencyFigures = object({ currency: str(), ...figures });

const Summary = object({
  since: timestamp,
  as_of: timestamp,
  mode: { type: 'string', enum: [...MODES, ''] },
  by_app: arrayOf(
    object({
      app_id: str(),
      app_name: str(),
      app_mode: mode,
      ...figures,
      by_currency: arrayOf(currencyFigures),
    }),
  ),
  by_provider: arrayOf(object({ provider: str(), ...figures })),
  by_currency: arrayOf(currencyFigures),
});

const Timeseries = object({
  days: { type: 'integer', minimum: 1 },
  mode: { type: 'string', enum: [...MODES, ''] },
  buckets: arrayOf(
    object({
      day: { type: 'string', format: 'date' },
      currency: str(),
      succeeded_count: { type: 'integer', minimum: 0 },
      succeeded_minor: minorSum,
    }),
  ),
});

const AdminRefund = object(
  {
    id: hex32('The refund id.'),
    payment_id: hex32('The payment.'),
    app_id: str(),
    mode,
    status: refundStatus,
    amount_minor: amount,
    currency: str(),
    provider,
    provider_ref: nullable(str('Null until the provider gave one.')),
    reason: str(),
    last_error: str(),
    succeeded_at: nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
  },
  [],
  'docs/api.md#refund-list',
);

const PaymentList = object({
  mode: { type: 'string', enum: [...MODES, ''] },
  payments: arrayOf(
    object({
      id: hex32('The payment id.'),
      app_id: str(),
      mode,
      status: paymentStatus,
      amount_minor: amount,
      currency: str(),
      method: str(),
      provider,
      provider_ref: nullable(str()),
      invoice_number: nullable(str()),
      last_error: str(),
      refund_status: nullable(refundStatus),
      refund_amount_minor: nullable({
        ...amount,
        description:
          "What is refunded of the payment, in minor units: its initiated and succeeded refunds added up (refunds made at the provider included), else the failed refund's amount; null without a refund.",
      }),
      created_at: timestamp,
      updated_at: timestamp,
      finalized_at: nullable(timestamp),
      test_scenario: nullable({
        type: 'string',
        description: "A test-mode payment's metadata.test_scenario (docs/api.md#test-scenarios).",
      }),
    }),
  ),
});

const RefundList = object({
  mode: { type: 'string', enum: [...MODES, ''] },
  refunds: arrayOf(ref('AdminRefund')),
});

const deliveryStatus: JsonSchema = { type: 'string', enum: ['pending', 'delivered', 'dead'] };

const PaymentDetail = object(
  {
    id: hex32('The payment id.'),
    app_id: str(),
    mode,
    status: paymentStatus,
    amount_minor: amount,
    currency: str(),
    method: str(),
    provider,
    provider_ref: nullable(str()),
    external_user_id: str(),
    email: nullable(str()),
    return_url: str(),
    metadata,
    invoice_number: str('"" when none.'),
    last_error: str(),
    checkout_url: nullable(str()),
    qr_string: nullable(str()),
    qr_image_url: nullable(str()),
    provider_deadline: nullable(timestamp),
    finalized_at: nullable(timestamp),
    subscription_id: nullable(str()),
    parent_payment_id: nullable(str("A renewal's first charge.")),
    created_at: timestamp,
    updated_at: timestamp,
    refund: { anyOf: [ref('AdminRefund'), { type: 'null' }] },
    disputes: { ...arrayOf(ref('Dispute')), description: "The payment's disputes, newest first." },
    inbound_events_count: { type: 'integer', minimum: 0 },
    deliveries: arrayOf(
      object({
        delivery_id: str(),
        event_id: str(),
        event_type: str(),
        status: deliveryStatus,
        attempts_count: { type: 'integer', minimum: 0 },
        last_status_code: nullable({ type: 'integer' }),
        next_attempt_at: nullable(timestamp),
        delivered_at: nullable(timestamp),
        created_at: timestamp,
        attempts: arrayOf(
          object({
            attempt: { type: 'integer', minimum: 1 },
            status_code: nullable({ type: 'integer' }),
            response_body: nullable(
              str(
                "The first 1 KiB of the receiver's answer as text (bytes that are not UTF-8 and NUL as U+FFFD); null when no answer came.",
              ),
            ),
            error: nullable(str()),
            duration_ms: { type: 'integer', minimum: 0 },
            started_at: timestamp,
            outcome: { type: 'string', enum: ['delivered', 'retry', 'dead'] },
          }),
        ),
      }),
    ),
  },
  [],
  'docs/api.md#payment-detail',
);

const Dispute = object(
  {
    dispute_id: hex32('The dispute id.'),
    payment_id: hex32('The disputed payment.'),
    app_id: str(),
    provider,
    provider_ref: str("The provider's case id, or the reversed transaction's."),
    status: disputeStatus,
    amount_minor: amount,
    currency: str(),
    reason: str("The provider's own words."),
    opened_at: timestamp,
    closed_at: nullable(timestamp),
    evidence_due_by: nullable(timestamp),
    mode,
  },
  [],
  'docs/api.md#disputes',
);

const Exception = object(
  {
    id: hex32('The exception id.'),
    payment_id: hex32('The payment.'),
    app_id: str(),
    kind: {
      type: 'string',
      enum: ['paid_after_cancel', 'paid_after_failure', 'unrequested_refund', 'amount_mismatch'],
    },
    provider,
    provider_ref: str(),
    amount_minor: amount,
    currency: str(),
    detected_at: timestamp,
    resolution: { type: 'string', enum: ['manual', 'refunded', 'resolved'] },
    note: nullable(str()),
    resolved_at: nullable(timestamp),
  },
  [],
  'docs/api.md#exceptions',
);

const DeliveryList = object({
  deliveries: arrayOf(
    object({
      delivery_id: str(),
      event_id: str(),
      event_type: str(),
      app_id: str(),
      payment_id: nullable(str()),
      status: deliveryStatus,
      attempts: { type: 'integer', minimum: 0 },
      last_status_code: nullable({ type: 'integer' }),
      last_error: nullable(str()),
      last_response_body: nullable(
        str("The last attempt's answer: its first 1 KiB as text, as in the payment detail."),
      ),
      next_attempt_at: nullable(timestamp),
      created_at: timestamp,
      updated_at: timestamp,
    }),
  ),
});

const InboundEventList = object({
  events: arrayOf(
    object({
      id: { type: 'integer', minimum: 1 },
      provider: str(),
      received_at: timestamp,
      signature_valid: { type: 'boolean' },
      event_type: nullable(str()),
      payment_id: nullable(str()),
      outcome: str('What the gateway did (docs/api.md#inbound-events).'),
      raw_body: str('The body as received (its first bytes when raw_body_truncated).'),
      raw_body_bytes: { type: 'integer', minimum: 0 },
      raw_body_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      raw_body_truncated: { type: 'boolean' },
    }),
  ),
});

const Balances = object({
  balances: arrayOf(
    object(
      {
        provider,
        mode,
        source: { type: 'string', enum: ['real', 'calculated'] },
        currency: str(),
        available_minor: minorSum,
        as_of: timestamp,
        error: str(),
      },
      ['as_of', 'error'],
    ),
  ),
  errors: arrayOf(object({ provider, mode, error: str() })),
});

const Payouts = object({
  since: timestamp,
  until: timestamp,
  payouts: arrayOf(
    object(
      {
        provider,
        mode,
        source: { type: 'string', enum: ['real', 'api_unavailable'] },
        items: arrayOf(
          object({
            id: str(),
            status: { type: 'string', enum: ['succeeded', 'pending', 'reversed', 'denied'] },
            currency: str(),
            amount_minor: amount,
            initiated_at: timestamp,
            updated_at: timestamp,
          }),
        ),
        error: str(),
      },
      ['mode', 'error'],
    ),
  ),
});

const lastCheck = nullable(object({ at: timestamp, asked: str(), learned: str() }));
const Stuck = object({
  payments: arrayOf(
    object({
      id: hex32('The payment id.'),
      app_id: str(),
      mode,
      status: paymentStatus,
      amount_minor: amount,
      currency: str(),
      method: str(),
      provider,
      provider_ref: nullable(str()),
      provider_deadline: nullable(timestamp),
      created_at: timestamp,
      last_check: lastCheck,
    }),
  ),
  refunds: arrayOf(
    object({
      id: hex32('The refund id.'),
      payment_id: hex32('The payment.'),
      app_id: str(),
      mode,
      status: refundStatus,
      amount_minor: amount,
      currency: str(),
      provider,
      provider_ref: nullable(str()),
      created_at: timestamp,
      updated_at: timestamp,
      last_check: lastCheck,
    }),
  ),
});

const AuditList = object({
  entries: arrayOf(
    object({
      id: { type: 'integer', minimum: 1 },
      at: timestamp,
      action: str(),
      target_type: { type: 'string', enum: ['app', 'payment'] },
      target_id: str(),
      outcome: str(),
      request_id: str(),
      source_ip: str(),
      details: { type: 'object' },
    }),
  ),
});

// ------------------------------------------------------------------- webhooks and health

const WebhookAck: JsonSchema = object(
  {
    acknowledged: { const: true },
    action: { type: 'string', enum: ['none', 'already_finalized'] },
  },
  ['action'],
  'docs/api.md#provider-webhooks',
);

const LedgerEntry = object(
  {
    id: hex32('The entry id.'),
    type: { type: 'string', enum: [...LEDGER_TYPES] },
    payment_id: hex32('The payment the money moved for.'),
    refund_id: nullable(hex32('refund and late_charge_refund: the refund.')),
    dispute_id: nullable(hex32('dispute and dispute_reversal: the dispute.')),
    exception_id: nullable(
      hex32('late_charge, and a late_charge_refund that gives one back: the exception.'),
    ),
    app_id: str(),
    provider,
    mode,
    currency: str('IDR, USD, EUR or GBP.', ['IDR']),
    amount_minor: {
      type: 'integer',
      minimum: -MAX_SAFE_AMOUNT,
      maximum: MAX_SAFE_AMOUNT,
      description: 'Signed: money in positive, money out negative.',
    },
    fee_minor: nullable({
      type: 'integer',
      minimum: 0,
      maximum: MAX_SAFE_AMOUNT,
      description: "The provider's fee where it reports one (PayPal's paypal_fee).",
    }),
    occurred_at: timestamp,
  },
  [],
  'docs/api.md#ledger',
);

/** Named schemas, referenced as #/components/schemas/<name>. */
export const RESPONSE_SCHEMAS = {
  Payment,
  CreatedPayment,
  Refund,
  PaymentEvent,
  RefundEvent,
  SubscriptionEvent,
  DisputeEvent,
  OutboundEvent,
  EventList,
  App,
  AppWithSecrets,
  AppList: object({ apps: arrayOf(ref('App')) }),
  Summary,
  Timeseries,
  PaymentList,
  AdminRefund,
  RefundList,
  PaymentDetail,
  Dispute,
  DisputeList: object({
    mode: { type: 'string', enum: [...MODES, ''] },
    disputes: arrayOf(ref('Dispute')),
  }),
  Exception,
  ExceptionList: object({ exceptions: arrayOf(ref('Exception')) }),
  LedgerEntry,
  LedgerList: object({ entries: arrayOf(ref('LedgerEntry')) }),
  DeliveryEnqueued: object({ delivery_id: str('dlv_ followed by 24 lowercase hex characters.') }),
  Redelivered: object({ deliveries: { type: 'integer', minimum: 0 } }),
  DeliveryList,
  InboundEventList,
  Balances,
  Payouts,
  Stuck,
  AuditList,
  WebhookAck,
  Health: object({ status: { const: 'ok' } }),
  Ready: object(
    {
      status: { const: 'ready' },
      warnings: {
        type: 'array',
        minItems: 1,
        items: { type: 'string' },
        description:
          'Present only when something will degrade the gateway over time, such as autovacuum being off on the database server.',
      },
    },
    ['warnings'],
  ),
  OpenApiDocument: {
    type: 'object',
    required: ['openapi', 'info', 'paths'],
    properties: { openapi: { const: '3.1.0' } },
  },
} satisfies Record<string, JsonSchema>;

export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;
