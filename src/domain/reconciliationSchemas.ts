/**
 * Response schemas of reconciliation (docs/api.md#reconciliation), part of RESPONSE_SCHEMAS
 * (responseSchemas.ts) and so of the OpenAPI document.
 */
import { RECONCILIATION_KINDS } from './reconciliation.js';
import { MAX_SAFE_AMOUNT, type JsonSchema } from './schemas.js';
import { MODES, PROVIDERS } from './types.js';

const closed = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required: Object.keys(properties),
  properties,
  additionalProperties: false,
});
const hex32 = { type: 'string', pattern: '^[0-9a-f]{32}$' } as const;
const orNull = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });
const signed: JsonSchema = { type: 'integer', minimum: -MAX_SAFE_AMOUNT, maximum: MAX_SAFE_AMOUNT };
const sum: JsonSchema = {
  type: 'integer',
  description:
    'Exact at any size: past 2^53 - 1 read it with a big-integer-aware JSON parser (docs/api.md#money).',
};
const day: JsonSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  examples: ['2026-11-24'],
};
const time: JsonSchema = { type: 'string', format: 'date-time' };

const ReconciliationItem = closed(
  {
    kind: { type: 'string', enum: [...RECONCILIATION_KINDS] },
    movement: {
      type: 'string',
      enum: ['charge', 'refund', 'dispute'],
      description:
        "dispute: money the provider took back (a chargeback, a reversal, a hold for a case) or gave back (a case won); its amounts are the net of the payment's dispute movements left unpaired.",
    },
    provider_ref: { type: 'string', description: "The provider's id of the movement." },
    payment_id: orNull({
      ...hex32,
      description: 'Null: the provider names no payment the gateway knows.',
    }),
    currency: { type: 'string' },
    gateway_amount_minor: orNull(signed),
    provider_amount_minor: orNull(signed),
    provider_status: orNull({
      type: 'string',
      enum: ['completed', 'pending', 'failed', 'reversed'],
    }),
    exception_id: orNull(hex32),
  },
  'One difference; signed amounts: money in positive, money out negative.',
);

const ReconciliationCurrencyTotals = closed(
  {
    currency: { type: 'string' },
    gateway_net_minor: sum,
    provider_net_minor: sum,
    fees_minor: sum,
  },
  "One currency's sums of the day (docs/api.md#reconciliation).",
);

const Reconciliation = closed(
  {
    provider: { type: 'string', enum: [...PROVIDERS] },
    mode: { type: 'string', enum: [...MODES] },
    date: day,
    status: { type: 'string', enum: ['matched', 'mismatched', 'pending'] },
    run_id: orNull(hex32),
    ran_at: orNull(time),
    import_id: orNull(hex32),
    matched_count: { type: 'integer', minimum: 0 },
    by_currency: {
      type: 'array',
      description:
        "The day's sums per currency, alphabetical (only currencies with a movement); amounts of two currencies are never added.",
      items: { $ref: '#/components/schemas/ReconciliationCurrencyTotals' },
    },
    items: { type: 'array', items: { $ref: '#/components/schemas/ReconciliationItem' } },
  },
  'docs/api.md#reconciliation',
);

const ReconciliationImport = closed(
  {
    import_id: hex32,
    provider: { type: 'string', enum: [...PROVIDERS] },
    mode: { type: 'string', enum: [...MODES] },
    date: day,
    filename: { type: 'string' },
    row_count: { type: 'integer', minimum: 0 },
    uploaded_at: time,
    uploaded_by: closed(
      { request_id: { type: 'string' }, source_ip: { type: 'string' } },
      'Who uploaded it, as the audit log records the request.',
    ),
  },
  'docs/api.md#reconciliation-imports',
);

export const RECONCILIATION_SCHEMAS = {
  ReconciliationItem,
  ReconciliationCurrencyTotals,
  Reconciliation,
  ReconciliationImport,
  ReconciliationImportList: closed({
    imports: { type: 'array', items: { $ref: '#/components/schemas/ReconciliationImport' } },
  }),
} satisfies Record<string, JsonSchema>;
