import { apiError } from './errors.js';
import { parseStorableJson } from './jsonInput.js';
import {
  CREATE_PAYMENT,
  METADATA_LIMITS,
  missingRequired,
  notStringMessage,
  prop,
  tooLongMessage,
  type BodySpec,
  type JsonSchema,
} from './schemas.js';

export interface CreatePaymentRequest {
  externalUserId: string;
  email: string | null;
  amountMinor: number;
  currency: string;
  method: string;
  returnUrl: string;
  metadata: Record<string, unknown>;
  invoicePrefix: string | null;
}

// The rules come from the CREATE_PAYMENT schema, which the OpenAPI document is generated from.
const P = CREATE_PAYMENT.schema.properties;
const M = CREATE_PAYMENT.messages;
const EMAIL = new RegExp(P.email.pattern);
const INVOICE_PREFIX = new RegExp(P.invoice_prefix.pattern);

const bad = (reason: string) => apiError('invalid', reason);

/** A JSON object body whose every field can be stored (see jsonInput.ts). */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  const body = parseStorableJson(raw);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** An integer within the schema's minimum and maximum. */
export function isIntegerIn(schema: JsonSchema, v: unknown): v is number {
  return (
    typeof v === 'number' &&
    Number.isInteger(v) &&
    v >= (schema.minimum ?? -Infinity) &&
    v <= (schema.maximum ?? Infinity)
  );
}

/** 1 to 2^53-1: the amount_minor rule of the request schemas. */
export function isPositiveSafeInteger(v: unknown): v is number {
  return isIntegerIn(P.amount_minor, v);
}

export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** A string field of `spec` (absent or null: null), within the schema's maxLength. */
export function optionalString(
  spec: BodySpec,
  body: Record<string, unknown>,
  field: string,
): string | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw bad(notStringMessage(field));
  const max = prop(spec, field).maxLength;
  if (max !== undefined && v.length > max) throw bad(tooLongMessage(field, max));
  return v;
}

function requiredString(body: Record<string, unknown>, field: string): string {
  return optionalString(CREATE_PAYMENT, body, field) as string;
}

/**
 * The first metadata limit `metadata` breaks (keys, key length, bytes), or null. Nesting
 * depth was checked with every JSON field (jsonInput.ts). The bytes are those of the compact
 * serialization, the form every event carries, so the request's own whitespace is free.
 */
export function metadataLimitProblem(metadata: Record<string, unknown>): string | null {
  const keys = Object.keys(metadata);
  if (keys.length > METADATA_LIMITS.maxKeys) return M.metadata_keys;
  if (keys.some((k) => k.length > METADATA_LIMITS.maxKeyLength)) return M.metadata_key_length;
  if (Buffer.byteLength(JSON.stringify(metadata), 'utf8') > METADATA_LIMITS.maxBytes) {
    return M.metadata_bytes;
  }
  return null;
}

export function parseCreatePayment(body: Record<string, unknown>): CreatePaymentRequest {
  const missing = missingRequired(CREATE_PAYMENT, body);
  if (missing.length > 0) throw apiError('missing_fields', missing.join(', '));

  const externalUserId = requiredString(body, 'external_user_id');
  if (!isPositiveSafeInteger(body.amount_minor)) throw bad(M.amount_minor);
  const currency = requiredString(body, 'currency');
  const method = requiredString(body, 'method');
  const returnUrl = requiredString(body, 'return_url');
  if (!isHttpUrl(returnUrl)) throw bad(M.return_url);

  const email = optionalString(CREATE_PAYMENT, body, 'email');
  if (email !== null && !EMAIL.test(email)) throw bad(M.email);

  const metadata = body.metadata ?? {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw bad(M.metadata);
  }
  const metadataReason = metadataLimitProblem(metadata as Record<string, unknown>);
  if (metadataReason) throw bad(metadataReason);

  const invoicePrefix = body.invoice_prefix ?? null;
  if (
    invoicePrefix !== null &&
    (typeof invoicePrefix !== 'string' || !INVOICE_PREFIX.test(invoicePrefix))
  ) {
    throw bad(M.invoice_prefix);
  }

  return {
    externalUserId,
    email: email === '' ? null : email,
    amountMinor: body.amount_minor,
    currency,
    method,
    returnUrl,
    metadata: metadata as Record<string, unknown>,
    invoicePrefix,
  };
}
