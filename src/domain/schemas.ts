/**
 * The request schemas (JSON Schema 2020-12, as OpenAPI 3.1 uses it). The parsers read their
 * rules from these objects (required fields, lengths, bounds, patterns, enums, messages) and
 * the OpenAPI document (src/http/openapi/) is generated from the same objects, so the document
 * cannot describe a rule the code does not apply. The parsers stay hand-written: the exact
 * plain-text 400 bodies and the order in which they are checked are part of the contract
 * (docs/api.md#errors), and a generic validator would report problems in its own words.
 */
import { INVOICE_PREFIX_PATTERN } from './invoice.js';
import { MAX_JSON_DEPTH } from './jsonInput.js';
import { PROVIDER_METHODS } from './routing.js';
import { MODES, PAYMENT_STATUSES, PROVIDERS } from './types.js';
import { MAX_SAFE_AMOUNT, type BodySpec, type JsonSchema } from './jsonSchema.js';

// The schema vocabulary and the 400 texts derived from it, for the parsers that import them here.
export {
  bodyErrors,
  integerParam,
  integerParamMessage,
  MAX_SAFE_AMOUNT,
  missingRequired,
  notStringMessage,
  prop,
  tooLongMessage,
} from './jsonSchema.js';
export type { BodySpec, IntegerParam, JsonSchema } from './jsonSchema.js';

const amountMinor = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_SAFE_AMOUNT,
  description: 'Smallest currency unit (docs/api.md#money): cents, or whole rupiah for IDR.',
  examples: [15000],
} as const satisfies JsonSchema;

// ---------------------------------------------------------------------------- /v1 bodies

/**
 * Limits of a payment's metadata (docs/api.md#metadata-limits). Every event of the payment
 * carries a copy, so its size multiplies into event pages, deliveries and memory; without
 * limits the body limit (1 MiB) was the only bound. 50 keys is Stripe's limit; 64-character
 * keys and 32 KiB leave room for Stripe-shaped metadata at its maximums (50 keys of 40
 * characters with 500-character ASCII values serialize to about 27 KB). The provider
 * enrichment the gateway adds later (at most three keys) is not counted, so an accepted
 * payment is never refused later.
 */
export const METADATA_LIMITS = {
  /** UTF-8 bytes of the compact JSON serialization (what events carry). */
  maxBytes: 32_768,
  /** Top-level keys. */
  maxKeys: 50,
  /** Characters (UTF-16 code units, like every length here) of a top-level key. */
  maxKeyLength: 64,
  /** Levels of nesting, the metadata object itself included (the rule of every JSON field). */
  maxDepth: MAX_JSON_DEPTH,
} as const;

/** POST /v1/payments (docs/api.md#create-a-payment). Properties in the documented order. */
export const CREATE_PAYMENT = {
  schema: {
    type: 'object',
    description:
      'A field that is absent, null or "" counts as missing. Fields the schema does not define are ignored.',
    required: ['external_user_id', 'amount_minor', 'currency', 'method', 'return_url'],
    properties: {
      external_user_id: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description: "The app's stable id of the buyer; no personal data.",
        examples: ['user-1'],
      },
      email: {
        type: ['string', 'null'],
        maxLength: 320,
        pattern: '^([^\\s@]+@[^\\s@]+)?$',
        description:
          'The buyer\'s address; "" counts as absent. idr_psp refuses QRIS and VA payments without it (502).',
        examples: ['buyer@example.com'],
      },
      amount_minor: amountMinor,
      currency: {
        type: 'string',
        minLength: 1,
        maxLength: 16,
        description:
          'ISO 4217, uppercase: IDR, USD, EUR or GBP. Any other code is answered by routing (422).',
        examples: ['IDR'],
      },
      method: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: `IDR: ${PROVIDER_METHODS.idr_psp.join(', ')}; USD, EUR, GBP: card_psp, wallet_psp (docs/api.md#routing).`,
        examples: ['qris'],
      },
      return_url: {
        type: 'string',
        format: 'uri',
        minLength: 1,
        maxLength: 2048,
        description: 'Absolute http or https URL where the provider sends the buyer afterwards.',
        examples: ['https://shop.example.com/return'],
      },
      metadata: {
        type: ['object', 'null'],
        default: {},
        maxProperties: METADATA_LIMITS.maxKeys,
        propertyNames: { maxLength: METADATA_LIMITS.maxKeyLength },
        description: `Any JSON object of at most ${METADATA_LIMITS.maxKeys} keys of at most ${METADATA_LIMITS.maxKeyLength} characters, at most ${METADATA_LIMITS.maxBytes} bytes as compact UTF-8 JSON, nesting at most ${METADATA_LIMITS.maxDepth} levels; stored and echoed on webhooks and events. card_psp needs card_psp_product_id.`,
        examples: [{ order: 'A-17' }],
      },
      invoice_prefix: {
        type: ['string', 'null'],
        pattern: INVOICE_PREFIX_PATTERN.source,
        description:
          'Asks for an invoice number <prefix>-<sequence> (docs/api.md#invoice-numbers).',
        examples: ['INV'],
      },
    },
  },
  messages: {
    amount_minor: 'amount_minor must be a positive integer',
    return_url: 'return_url must be an absolute http(s) URL',
    email: 'email must be an email address',
    metadata: 'metadata must be a JSON object',
    metadata_keys: `metadata must have at most ${METADATA_LIMITS.maxKeys} keys`,
    metadata_key_length: `metadata keys must be at most ${METADATA_LIMITS.maxKeyLength} characters`,
    metadata_bytes: `metadata must be at most ${METADATA_LIMITS.maxBytes} bytes`,
    invoice_prefix: `invoice_prefix must match ${INVOICE_PREFIX_PATTERN.source}`,
  },
  ownTypeMessage: ['invoice_prefix'],
} as const satisfies BodySpec;

const refundReason = {
  type: ['string', 'null'],
  maxLength: 500,
  default: '',
  description: 'Free text, echoed on the refund and its webhook.',
  examples: ['customer request'],
} as const satisfies JsonSchema;

const refundAmount = {
  ...amountMinor,
  type: ['integer', 'null'],
  description: "Up to the payment's amount; absent or null refunds the whole amount.",
  examples: [5000],
} as const satisfies JsonSchema;

/** POST /v1/refunds (docs/api.md#create-a-refund). */
export const CREATE_REFUND = {
  schema: {
    type: 'object',
    required: ['payment_id'],
    properties: {
      payment_id: {
        type: 'string',
        minLength: 1,
        description:
          'A succeeded payment of this app. A malformed or unknown id is 404 payment not found.',
        examples: ['0123456789abcdef0123456789abcdef'],
      },
      amount_minor: refundAmount,
      reason: refundReason,
    },
  },
  messages: { amount_minor: 'amount_minor must be a positive integer' },
} as const satisfies BodySpec;

/** POST /admin/payments/{payment_id}/refund (docs/api.md#admin-refund): an empty body is {}. */
export const ADMIN_REFUND = {
  schema: {
    type: 'object',
    properties: { amount_minor: refundAmount, reason: refundReason },
  },
  messages: CREATE_REFUND.messages,
} as const satisfies BodySpec;

// --------------------------------------------------------------------------- admin bodies

const providerMethodsSchema = Object.fromEntries(
  PROVIDERS.map((p) => [
    p,
    {
      type: 'array',
      items: { type: 'string', enum: [...PROVIDER_METHODS[p]] },
      description: `Methods of ${p} the app may use; an empty array disables them all.`,
    } satisfies JsonSchema,
  ]),
) as Readonly<Record<string, JsonSchema>>;

const appSettings = {
  name: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'Not empty or blank.',
    examples: ['My shop'],
  },
  webhook_url: {
    type: ['string', 'null'],
    format: 'uri',
    maxLength: 2048,
    description:
      'Absolute http(s) URL; null or "" means none. Live apps: a public address (docs/api.md#apps).',
    examples: ['https://shop.example/hooks/paygate'],
  },
  allowed_providers: {
    type: 'array',
    items: { type: 'string', enum: [...PROVIDERS] },
    description: 'Known provider slugs; duplicates dropped. Default: all three.',
    examples: [[...PROVIDERS]],
  },
  allowed_methods: {
    type: 'object',
    properties: providerMethodsSchema,
    additionalProperties: false,
    description:
      "Provider slug to that provider's methods; a provider left out keeps all its methods.",
  },
} as const satisfies Record<string, JsonSchema>;

/** Every 400 text of the app parsers (services/apps.ts). */
export const APP_MESSAGES = {
  body: 'body must be a JSON object',
  name: 'name must be a non-empty string',
  name_length: `name must be at most ${appSettings.name.maxLength} characters`,
  mode: `mode must be one of ${MODES.join(', ')}`,
  mode_change: 'mode cannot be changed',
  webhook_url: 'webhook_url must be an absolute http(s) URL',
  webhook_url_public: 'webhook_url must be a public address',
  allowed_providers: 'allowed_providers must be an array of provider slugs',
  allowed_methods: 'allowed_methods must be an object of provider slug to method list',
} as const;
const without = (key: keyof typeof APP_MESSAGES) =>
  Object.fromEntries(Object.entries(APP_MESSAGES).filter(([k]) => k !== key));
// Create never answers `mode cannot be changed`; update never checks the mode's value.
const createAppMessages = without('mode_change');
const patchAppMessages = without('mode');

/** POST /admin/apps (docs/api.md#apps). */
export const CREATE_APP = {
  schema: {
    type: 'object',
    required: ['name'],
    properties: {
      name: appSettings.name,
      mode: {
        type: 'string',
        enum: [...MODES],
        default: 'test',
        description: 'Cannot be changed later.',
      },
      webhook_url: appSettings.webhook_url,
      allowed_providers: appSettings.allowed_providers,
      allowed_methods: appSettings.allowed_methods,
    },
  },
  messages: createAppMessages,
} as const satisfies BodySpec;

/** PATCH /admin/apps/{app_id}: the same rules; fields not sent stay as they are; no mode. */
export const PATCH_APP = {
  schema: {
    type: 'object',
    properties: appSettings,
    description: 'mode in the body: 400 mode cannot be changed.',
  },
  messages: patchAppMessages,
} as const satisfies BodySpec;

/** POST /admin/exceptions/{id}/resolve (docs/api.md#exceptions). */
export const RESOLVE_EXCEPTION = {
  schema: {
    type: 'object',
    required: ['note'],
    properties: {
      note: {
        type: 'string',
        minLength: 1,
        maxLength: 2000,
        description: 'Not blank: how the money was given back.',
        examples: ['refunded in the provider dashboard'],
      },
    },
  },
  messages: {
    note: 'note is required',
    note_length: 'note must be at most 2000 characters',
  },
} as const satisfies BodySpec;

const timeParam = {
  type: 'string',
  anyOf: [{ format: 'date-time' }, { format: 'date' }],
  description:
    'RFC 3339 with Z or an offset and seconds, or a date YYYY-MM-DD (midnight UTC); years from 1970.',
  examples: ['2025-01-02T03:04:05Z'],
} as const satisfies JsonSchema;

/** POST /admin/apps/{app_id}/redeliver (docs/api.md#bulk-redelivery). */
export const REDELIVER = {
  schema: {
    type: 'object',
    required: ['since'],
    properties: {
      since: timeParam,
      until: { ...timeParam, description: `${timeParam.description} Default: now.` },
      only_undelivered: { type: 'boolean', default: false },
    },
  },
  messages: {
    only_undelivered: 'only_undelivered must be a boolean',
  },
} as const satisfies BodySpec;

// ------------------------------------------------------------------ headers and parameters

/** The Idempotency-Key header (docs/api.md#idempotency). */
export const IDEMPOTENCY_KEY = {
  schema: {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x20-\\x7e]+$',
    description: '1 to 255 printable ASCII characters; a UUID serves.',
    examples: ['5f1c2c1e-8a43-4d4f-9a8e-3c1b7d0e2f10'],
  },
  message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
} as const;

/** Query parameters of the admin and /v1 reads (docs/api.md#query-parameters). */
export const PARAMS = {
  mode: {
    type: 'string',
    description:
      'test, sandbox or live filters; absent, empty or anything else means no filter (answered as "mode": "").',
    examples: ['live'],
  },
  days: {
    type: 'integer',
    minimum: 1,
    maximum: 366,
    default: 30,
    description: 'The last N UTC calendar days, today included.',
  },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: 'Rows per page.',
  },
  eventsLimit: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 100,
    description: 'Events per page.',
  },
  time: timeParam,
  paymentStatus: { type: 'string', enum: [...PAYMENT_STATUSES] },
  deliveryStatus: { type: 'string', enum: ['pending', 'delivered', 'dead'] },
  q: {
    type: 'string',
    maxLength: 200,
    description:
      'A payment id or a prefix of 8 to 32 of its hex characters (any case), or exactly an external_user_id, email, invoice_number or provider_ref.',
  },
  appId: { type: 'string', maxLength: 64, description: 'Exactly this app.' },
  amount: { type: 'integer', minimum: 0, maximum: MAX_SAFE_AMOUNT },
  auditTargetId: { type: 'string', maxLength: 200 },
  eventsAfter: {
    type: 'string',
    maxLength: 64,
    description: 'The id of the last event of the previous page; absent or empty: the beginning.',
  },
} as const satisfies Record<string, JsonSchema>;
