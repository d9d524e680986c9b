/**
 * Request bodies of webhook endpoints (docs/api.md#webhook-endpoints): the parsers in
 * services/endpoints.ts answer these texts, and the OpenAPI document lists them.
 */
import { EVENT_TYPES } from './events.js';
import type { BodySpec, JsonSchema } from './schemas.js';

export const ENDPOINT_URL_MAX = 2048;
export const ENDPOINT_DESCRIPTION_MAX = 500;
export const GRACE_HOURS_MAX = 168;

const url = {
  type: 'string',
  format: 'uri',
  maxLength: ENDPOINT_URL_MAX,
  description:
    'Absolute http(s) URL. For a live app it must reach only public addresses, as its webhook_url.',
  examples: ['https://finance.example.com/paygate'],
} as const satisfies JsonSchema;

const eventTypes = {
  type: 'array',
  minItems: 1,
  items: { type: 'string', enum: [...EVENT_TYPES, '*'] },
  description: 'Event kinds to receive, or ["*"] for every kind (dispute kinds included).',
  examples: [['refund.succeeded', 'refund.failed']],
} as const satisfies JsonSchema;

const description = {
  type: 'string',
  maxLength: ENDPOINT_DESCRIPTION_MAX,
  description: 'Free text for the operator.',
} as const satisfies JsonSchema;

export const ENDPOINT_MESSAGES = {
  body: 'body must be a JSON object',
  url: `url must be an absolute http(s) URL of at most ${ENDPOINT_URL_MAX} characters`,
  url_public: 'url must be a public address',
  event_types: 'event_types must be a non-empty array of event kinds, or ["*"]',
  event_type: `event_types may hold only ${[...EVENT_TYPES, '*'].join(', ')}`,
  star: 'event_types ["*"] cannot be combined with other kinds',
  disabled: 'disabled must be a boolean',
} as const;

/** POST /admin/apps/{app_id}/endpoints */
export const CREATE_ENDPOINT = {
  schema: {
    type: 'object',
    required: ['url', 'event_types'],
    properties: { url, event_types: eventTypes, description },
  },
  messages: {
    body: ENDPOINT_MESSAGES.body,
    url: ENDPOINT_MESSAGES.url,
    url_public: ENDPOINT_MESSAGES.url_public,
    event_types: ENDPOINT_MESSAGES.event_types,
    event_type: ENDPOINT_MESSAGES.event_type,
    star: ENDPOINT_MESSAGES.star,
  },
  ownTypeMessage: ['url'],
} as const satisfies BodySpec;

/** PATCH /admin/apps/{app_id}/endpoints/{endpoint_id}: any of the fields. */
export const PATCH_ENDPOINT = {
  schema: {
    type: 'object',
    properties: { url, event_types: eventTypes, description, disabled: { type: 'boolean' } },
  },
  messages: ENDPOINT_MESSAGES,
  ownTypeMessage: ['url'],
} as const satisfies BodySpec;

/** rotate-secret and regenerate-keys. */
export const ROTATE = {
  schema: {
    type: 'object',
    properties: {
      grace_hours: {
        type: 'integer',
        minimum: 0,
        maximum: GRACE_HOURS_MAX,
        default: 0,
        description:
          'Hours the old secret (and for regenerate-keys the old api key and signing secret) keep working; 0 replaces them at once.',
      },
    },
  },
  messages: {
    body: 'body must be a JSON object',
    grace_hours: `grace_hours must be an integer from 0 to ${GRACE_HOURS_MAX}`,
  },
} as const satisfies BodySpec;

/** POST .../endpoints/{endpoint_id}/recover */
export const RECOVER = {
  schema: {
    type: 'object',
    required: ['since'],
    properties: {
      since: {
        type: 'string',
        anyOf: [{ format: 'date-time' }, { format: 'date' }],
        description: 'RFC 3339 with Z or an offset, or a date YYYY-MM-DD (midnight UTC).',
        examples: ['2025-01-02T03:04:05Z'],
      },
    },
  },
  messages: {
    body: 'body must be a JSON object',
    since: 'since must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)',
  },
} as const satisfies BodySpec;

export const STATS_DAYS = {
  type: 'integer',
  minimum: 1,
  maximum: 90,
  default: 7,
  description: 'Days back from now.',
} as const satisfies JsonSchema;
