/**
 * Request bodies of the operator routes (docs/api.md#operators) with their exact 400 texts,
 * and their parsers. The OpenAPI document lists the same texts (from these specs).
 */
import { ROLES, type Role } from './roles.js';
import { apiError } from '../domain/errors.js';
import { textProblem } from '../domain/jsonInput.js';
import type { BodySpec } from '../domain/schemas.js';

const email = {
  type: 'string',
  maxLength: 254,
  description:
    'The address the identity provider verifies at sign-in (any case: one account per address).',
  examples: ['ana@example.com'],
} as const;
const name = { type: 'string', minLength: 1, maxLength: 200, examples: ['Ana Lim'] } as const;
const role = { type: 'string', enum: [...ROLES] } as const;

export const OPERATOR_MESSAGES = {
  body: 'body must be a JSON object',
  email: 'email must be an email address of at most 254 characters',
  name: 'name must be a non-empty string of at most 200 characters',
  role: `role must be one of ${ROLES.join(', ')}`,
  disabled: 'disabled must be a boolean',
  token_name: 'name must be a non-empty string of at most 100 characters',
  expires_in_days: 'expires_in_days must be an integer from 1 to 365',
  enabled: 'enabled must be a boolean',
} as const;
const M = OPERATOR_MESSAGES;

/** POST /admin/operators. */
export const CREATE_OPERATOR = {
  schema: {
    type: 'object',
    required: ['email', 'name', 'role'],
    properties: { email, name, role },
  },
  messages: { body: M.body, email: M.email, name: M.name, role: M.role },
  ownTypeMessage: ['email', 'name', 'role'],
} as const satisfies BodySpec;

/** PATCH /admin/operators/{id}: fields not sent stay as they are. */
export const PATCH_OPERATOR = {
  schema: {
    type: 'object',
    properties: {
      name,
      role,
      disabled: {
        type: 'boolean',
        description:
          'true: the operator can no longer sign in, their sessions end and their tokens stop working at once.',
      },
    },
  },
  messages: { body: M.body, name: M.name, role: M.role, disabled: M.disabled },
  ownTypeMessage: ['name', 'role'],
} as const satisfies BodySpec;

/** POST /admin/operators/{id}/tokens. */
export const CREATE_TOKEN = {
  schema: {
    type: 'object',
    required: ['name', 'expires_in_days'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, examples: ['nightly export'] },
      expires_in_days: { type: 'integer', minimum: 1, maximum: 365, examples: [90] },
    },
  },
  messages: { body: M.body, name: M.token_name, expires_in_days: M.expires_in_days },
  ownTypeMessage: ['name'],
} as const satisfies BodySpec;

/** PATCH /admin/admin-token. */
export const PATCH_ADMIN_TOKEN = {
  schema: {
    type: 'object',
    required: ['enabled'],
    properties: {
      enabled: {
        type: 'boolean',
        description: 'false turns ADMIN_TOKEN off on every instance at once.',
      },
    },
  },
  messages: { body: M.body, enabled: M.enabled },
} as const satisfies BodySpec;

type Body = Record<string, unknown>;

function object(body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw apiError('invalid', M.body);
  }
  return body as Body;
}

function missing(body: Body, fields: readonly string[]): void {
  const absent = fields.filter((f) => body[f] === undefined || body[f] === null || body[f] === '');
  if (absent.length > 0) throw apiError('missing_fields', absent.join(', '));
}

function text(v: unknown, max: number, message: string): string {
  if (typeof v !== 'string' || v.trim() === '' || v.length > max || textProblem(v) !== null) {
    throw apiError('invalid', message);
  }
  return v.trim();
}

function parseRole(v: unknown): Role {
  if (typeof v !== 'string' || !(ROLES as readonly string[]).includes(v)) {
    throw apiError('invalid', M.role);
  }
  return v as Role;
}

function parseEmail(v: unknown): string {
  const s = text(v, 254, M.email);
  // One @, something on each side, no spaces: the identity provider has verified the rest.
  if (!/^[^\s@]+@[^\s@]+$/.test(s)) throw apiError('invalid', M.email);
  return s;
}

export function parseCreateOperator(raw: unknown): { email: string; name: string; role: Role } {
  const b = object(raw);
  missing(b, CREATE_OPERATOR.schema.required);
  return { email: parseEmail(b.email), name: text(b.name, 200, M.name), role: parseRole(b.role) };
}

export function parsePatchOperator(raw: unknown): {
  name: string | null;
  role: Role | null;
  disabled: boolean | null;
} {
  const b = object(raw);
  if (b.disabled !== undefined && typeof b.disabled !== 'boolean') {
    throw apiError('invalid', M.disabled);
  }
  return {
    name: b.name === undefined ? null : text(b.name, 200, M.name),
    role: b.role === undefined ? null : parseRole(b.role),
    disabled: (b.disabled as boolean | undefined) ?? null,
  };
}

export function parseCreateToken(raw: unknown): { name: string; expiresInDays: number } {
  const b = object(raw);
  missing(b, CREATE_TOKEN.schema.required);
  const days = b.expires_in_days;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 365) {
    throw apiError('invalid', M.expires_in_days);
  }
  return { name: text(b.name, 100, M.token_name), expiresInDays: days };
}

export function parsePatchAdminToken(raw: unknown): { enabled: boolean } {
  const b = object(raw);
  if (b.enabled === undefined || b.enabled === null) throw apiError('missing_fields', 'enabled');
  if (typeof b.enabled !== 'boolean') throw apiError('invalid', M.enabled);
  return { enabled: b.enabled };
}
