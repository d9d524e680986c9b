/** Response schemas of deliveries, balances, payouts, operations, webhooks and the ledger. */
import { MAX_SAFE_AMOUNT, type JsonSchema } from './schemas.js';
import { LEDGER_TYPES } from './types.js';
import {
  amount,
  arrayOf,
  deliveryStatus,
  hex32,
  minorSum,
  mode,
  nullable,
  object,
  provider,
  refundStatus,
  str,
  timestamp,
  paymentRowFields,
} from './schemaParts.js';

export const DeliveryList = object({
  deliveries: arrayOf(
    object({
      delivery_id: str(),
      event_id: str(),
      event_type: str(),
      app_id: str(),
      endpoint_id: nullable(str("null for the app's webhook_url.")),
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

export const InboundEventList = object({
  events: arrayOf(
    object(
      {
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
        raw_body_error: str(
          'Only when the stored body cannot be read back (raw_body is then ""): why (docs/api.md#inbound-events).',
        ),
      },
      ['raw_body_error'],
    ),
  ),
});

export const Balances = object({
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

export const Payouts = object({
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

export const lastCheck = nullable(object({ at: timestamp, asked: str(), learned: str() }));
export const Stuck = object({
  payments: arrayOf(
    object({
      ...paymentRowFields,
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

export const AuditList = object({
  entries: arrayOf(
    object({
      id: { type: 'integer', minimum: 1 },
      at: timestamp,
      action: str(),
      target_type: {
        type: 'string',
        enum: [
          'app',
          'payment',
          'endpoint',
          'reconciliation_import',
          'reconciliation_run',
          'exception',
          'operator',
          'setting',
        ],
      },
      target_id: str(),
      outcome: str(),
      request_id: str(),
      source_ip: str(),
      details: { type: 'object' },
      actor: {
        type: 'string',
        pattern: '^(root|system|op_[0-9a-f]{24})$',
        description: 'root (ADMIN_TOKEN) or the operator id.',
      },
      actor_email: nullable(str("The operator's email then; null for root.")),
      actor_token_name: nullable(str('The personal token used, if one was.')),
    }),
  ),
});

// ------------------------------------------------------------------- webhooks and health

export const WebhookAck: JsonSchema = object(
  {
    acknowledged: { const: true },
    action: { type: 'string', enum: ['none', 'already_finalized'] },
  },
  ['action'],
  'docs/api.md#provider-webhooks',
);

export const LedgerEntry = object(
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
