/**
 * Response schemas of the operator routes and sign-in (docs/api.md#operators), merged into
 * RESPONSE_SCHEMAS. Objects are closed, like the rest.
 */
import type { JsonSchema } from './schemas.js';

const ROLE_NAMES = ['viewer', 'support', 'finance', 'admin'] as const;

const timestamp: JsonSchema = {
  type: 'string',
  format: 'date-time',
  description: 'RFC 3339 in UTC with milliseconds.',
  examples: ['2025-01-02T03:04:05.678Z'],
};
const nullableTimestamp: JsonSchema = { ...timestamp, type: ['string', 'null'] };
const str = (description?: string): JsonSchema => ({
  type: 'string',
  ...(description ? { description } : {}),
});
const nullableStr = (description: string): JsonSchema => ({
  type: ['string', 'null'],
  description,
});

function object(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: Object.keys(properties),
    properties,
    additionalProperties: false,
  };
}

const operatorId: JsonSchema = {
  type: 'string',
  pattern: '^op_[0-9a-f]{24}$',
  examples: ['op_5b1f0c7e9a2d4c6b8e0f1a2b'],
};
const tokenId: JsonSchema = {
  type: 'string',
  pattern: '^tok_[0-9a-f]{24}$',
  examples: ['tok_0c9d8e7f6a5b4c3d2e1f0a9b'],
};
const role: JsonSchema = { type: 'string', enum: [...ROLE_NAMES] };

const Operator = object({
  id: operatorId,
  email: str('Matched (any case) with the verified email of an OpenID Connect sign-in.'),
  name: str(),
  role,
  disabled: { type: 'boolean' },
  created_at: timestamp,
  updated_at: timestamp,
});

const tokenFields = {
  id: tokenId,
  operator_id: operatorId,
  name: str(),
  created_at: timestamp,
  expires_at: timestamp,
  revoked_at: nullableTimestamp,
  last_used_at: nullableTimestamp,
};

export const OPERATOR_RESPONSE_SCHEMAS = {
  Operator,
  OperatorList: object({ operators: { type: 'array', items: Operator } }),
  OperatorToken: object(tokenFields, 'A personal API token, never with its secret.'),
  OperatorTokenList: object({
    tokens: { type: 'array', items: object(tokenFields) },
  }),
  NewOperatorToken: object(
    {
      ...tokenFields,
      token: {
        type: 'string',
        pattern: '^pgo_[A-Za-z0-9_-]{43}$',
        description:
          'The secret, shown in this answer only: use it as Authorization: Bearer <token>.',
      },
    },
    'The new token with its secret.',
  ),
  Me: object(
    {
      actor: { type: 'string', pattern: '^(root|system|op_[0-9a-f]{24})$' },
      email: nullableStr('null for root (ADMIN_TOKEN).'),
      name: nullableStr('null for root (ADMIN_TOKEN).'),
      role: { ...role, description: 'root (ADMIN_TOKEN) has every right: admin.' },
      token_name: nullableStr('The personal token used, if one was.'),
      csrf_token: nullableStr(
        'With the session cookie only: send it as X-CSRF-Token on every request that changes something.',
      ),
    },
    'Who is asking.',
  ),
  AdminTokenSetting: object({ enabled: { type: 'boolean' } }),
  AuthMethods: object({
    oidc: { type: 'boolean', description: 'Single sign-on is configured (OIDC_ISSUER).' },
  }),
} satisfies Record<string, JsonSchema>;
