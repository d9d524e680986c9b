/** Answer schemas of webhook endpoints (docs/api.md#webhook-endpoints); see responseSchemas.ts. */
import { EVENT_TYPES } from './events.js';
import type { JsonSchema } from './schemas.js';

const str = (description?: string): JsonSchema => ({
  type: 'string',
  ...(description ? { description } : {}),
});
const nullable = (s: JsonSchema): JsonSchema => ({
  ...s,
  type: [s.type as 'string' | 'integer' | 'number', 'null'],
});
const timestamp: JsonSchema = { type: 'string', format: 'date-time' };
const int: JsonSchema = { type: 'integer', minimum: 0 };

function object(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: Object.keys(properties),
    properties,
    additionalProperties: false,
  };
}

const endpointId = str('ep_ followed by 24 lowercase hex characters.');
const eventTypes: JsonSchema = {
  type: 'array',
  items: { type: 'string', enum: [...EVENT_TYPES, '*'] },
};
const secret = str('whsec_ followed by 64 lowercase hex characters. Shown only here.');

const Endpoint = object({
  endpoint_id: endpointId,
  app_id: str(),
  url: str(),
  event_types: eventTypes,
  description: str(),
  disabled: { type: 'boolean' },
  disabled_reason: nullable(str('Why it was disabled: by an operator, or every attempt failed.')),
  rotates_at: nullable({
    ...timestamp,
    description: 'The end of the latest secret rotation window; null before any rotation.',
  }),
  failing_since: nullable({
    ...timestamp,
    description: 'The first failed attempt since the last delivered one.',
  }),
  created_at: timestamp,
  updated_at: timestamp,
});

const attempt = object({
  delivery_id: str(),
  event_id: str(),
  event_type: str(),
  attempt: { type: 'integer', minimum: 1 },
  started_at: timestamp,
  duration_ms: int,
  status_code: nullable({ type: 'integer' }),
  error: nullable(str()),
  response_body: nullable(str("The first 1 KiB of the receiver's answer; null without one.")),
  outcome: { type: 'string', enum: ['delivered', 'retry', 'dead'] },
});

const ms = nullable({ type: 'integer', minimum: 0 });

export const ENDPOINT_SCHEMAS = {
  Endpoint,
  EndpointList: object({ endpoints: { type: 'array', items: Endpoint } }),
  CreatedEndpoint: object(
    {
      endpoint_id: endpointId,
      app_id: str(),
      url: str(),
      event_types: eventTypes,
      description: str(),
      secret,
      disabled: { type: 'boolean' },
      created_at: timestamp,
    },
    'The only answer with the secret, besides rotate-secret.',
  ),
  RotatedSecret: object({
    endpoint_id: endpointId,
    secret,
    rotates_at: {
      ...timestamp,
      description:
        'Until then X-PAY-Signature stays under the old secret and X-PAY-Signature-Next carries the new one; with grace_hours 0, the time of the rotation.',
    },
  }),
  EndpointStats: object({
    endpoint_id: endpointId,
    days: { type: 'integer', minimum: 1 },
    attempts: int,
    delivered: int,
    failed: int,
    success_rate: nullable({ type: 'number', minimum: 0, maximum: 1 }),
    latency_ms: object({ p50: ms, p90: ms, p99: ms }),
    recent_attempts: { type: 'array', items: attempt, description: 'Newest first, at most 20.' },
  }),
} satisfies Record<string, JsonSchema>;
