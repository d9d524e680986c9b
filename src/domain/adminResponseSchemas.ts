/** Response schemas of the admin API: apps, reports, payments, disputes, exceptions. */
import { MAX_SAFE_AMOUNT, type JsonSchema } from './schemas.js';
import { MODES } from './types.js';
import {
  amount,
  arrayOf,
  deliveryStatus,
  disputeStatus,
  hex32,
  metadata,
  minorSum,
  mode,
  nullable,
  object,
  provider,
  ref,
  refundStatus,
  str,
  timestamp,
  paymentRowFields,
} from './schemaParts.js';

// ---------------------------------------------------------------------------------- admin

export const appProps = {
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

export const App = object(appProps, [], 'An app without its secrets.');
export const AppWithSecrets = object(
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
    rotates_at: {
      ...timestamp,
      description:
        'regenerate-keys with grace_hours > 0 only: until then the old api key, signing secret and webhook secret keep working (docs/api.md#regenerate-keys).',
    },
  },
  ['rotates_at'],
  'The only answers that show the secrets: create and regenerate-keys.',
);

export const figures = {
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
export const currencyFigures = object({ currency: str(), ...figures });

export const Summary = object({
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

export const Timeseries = object({
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

export const AdminRefund = object(
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

export const PaymentList = object({
  mode: { type: 'string', enum: [...MODES, ''] },
  payments: arrayOf(
    object({
      ...paymentRowFields,
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
  next_before: nullable(
    hex32(
      'The `before` of the next page: the last row of a full page, or the last payment the search examined when it stopped at its bound, even on a page shorter than `limit` or empty; null only when the search reached the end (docs/api.md#bounded-search).',
    ),
  ),
});

export const RefundList = object({
  mode: { type: 'string', enum: [...MODES, ''] },
  refunds: arrayOf(ref('AdminRefund')),
});

export const PaymentDetail = object(
  {
    ...paymentRowFields,
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
        endpoint_id: nullable(
          str(
            "The webhook endpoint (ep_...); null for the app's webhook_url, its default endpoint.",
          ),
        ),
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

export const Dispute = object(
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

export const Exception = object(
  {
    id: hex32('The exception id.'),
    payment_id: nullable(hex32('The payment; null for a reconciliation item naming none.')),
    app_id: nullable(str()),
    kind: {
      type: 'string',
      enum: [
        'paid_after_cancel',
        'paid_after_failure',
        'unrequested_refund',
        'amount_mismatch',
        'reconciliation',
      ],
    },
    provider,
    provider_ref: str(),
    amount_minor: {
      type: 'integer',
      minimum: -MAX_SAFE_AMOUNT,
      maximum: MAX_SAFE_AMOUNT,
      description:
        "The money at stake; for kind reconciliation the provider's amount minus the gateway's (docs/api.md#reconciliation).",
    },
    currency: str(),
    detected_at: timestamp,
    resolution: { type: 'string', enum: ['manual', 'refunded', 'resolved'] },
    note: nullable(str()),
    resolved_at: nullable(timestamp),
  },
  [],
  'docs/api.md#exceptions',
);
