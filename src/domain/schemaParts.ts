/** Building blocks of the response schemas (JSON Schema 2020-12), shared by their files. */
import { MAX_SAFE_AMOUNT, type JsonSchema } from './schemas.js';
import { SOURCE } from './jsonSchema.js';
import { MODES, PAYMENT_STATUSES, PROVIDERS } from './types.js';

export const str = (description?: string, examples?: readonly unknown[]): JsonSchema => ({
  type: 'string',
  ...(description ? { description } : {}),
  ...(examples ? { examples } : {}),
});
export const nullable = (s: JsonSchema): JsonSchema => ({
  ...s,
  type: [s.type as 'string' | 'integer' | 'object' | 'boolean', 'null'],
  ...(s.enum ? { enum: [...s.enum, null] } : {}),
});

/**
 * The property's value is the row's `column` (src/domain/serialize.ts writes answers from
 * rows by their schema): `refund_id: from('id', hex32(...))`. Invisible in the document.
 */
export const from = (column: string, s: JsonSchema): JsonSchema => ({
  ...s,
  [SOURCE]: { ...s[SOURCE], from: column },
});
/** A null in the row is written as "" (the /v1 answers' texts that are unset). */
export const emptyWhenNull = (s: JsonSchema): JsonSchema => ({
  ...s,
  [SOURCE]: { ...s[SOURCE], whenNull: '' },
});

export const hex32 = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^[0-9a-f]{32}$',
  description,
  examples: ['0123456789abcdef0123456789abcdef'],
});
export const timestamp: JsonSchema = {
  type: 'string',
  format: 'date-time',
  description: 'RFC 3339 in UTC with milliseconds.',
  examples: ['2025-01-02T03:04:05.678Z'],
};
export const amount: JsonSchema = { type: 'integer', minimum: 0, maximum: MAX_SAFE_AMOUNT };
export const mode: JsonSchema = { type: 'string', enum: [...MODES] };
export const provider: JsonSchema = { type: 'string', enum: [...PROVIDERS] };
export const paymentStatus: JsonSchema = { type: 'string', enum: [...PAYMENT_STATUSES] };
export const refundStatus: JsonSchema = {
  type: 'string',
  enum: ['initiated', 'succeeded', 'failed'],
};
export const metadata: JsonSchema = {
  type: 'object',
  description: "The app's metadata plus provider enrichment (docs/api.md#metadata-enrichment).",
};
/**
 * A sum of minor units (D14, docs/api.md#money): a JSON integer with its exact digits at any
 * size, so no maximum; a JavaScript reader needs a big-integer-aware parser past 2^53 - 1.
 */
export const minorSum: JsonSchema = {
  type: 'integer',
  description:
    'Exact at any size: past 2^53 - 1 read it with a big-integer-aware JSON parser (docs/api.md#money).',
  examples: [12000],
};

export function object(
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
export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const disputeStatus: JsonSchema = { type: 'string', enum: ['open', 'won', 'lost'] };
export const deliveryStatus: JsonSchema = {
  type: 'string',
  enum: ['pending', 'delivered', 'dead'],
};

/** The fields that open every admin view of a payment: list rows, stuck rows, the detail. */
export const paymentRowFields: Record<string, JsonSchema> = {
  id: hex32('The payment id.'),
  app_id: str(),
  mode,
  status: paymentStatus,
  amount_minor: amount,
  currency: str(),
  method: str(),
  provider,
  provider_ref: nullable(str()),
};
