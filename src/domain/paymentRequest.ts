import { apiError } from './errors.js';
import { INVOICE_PREFIX_PATTERN } from './invoice.js';
import { parseStorableJson } from './jsonInput.js';

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

/** Required fields in the documented order (docs/api.md#create-a-payment). */
const REQUIRED = ['external_user_id', 'amount_minor', 'currency', 'method', 'return_url'] as const;

const bad = (reason: string) => apiError('invalid', reason);

/** A JSON object body whose every field can be stored (see jsonInput.ts). */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  const body = parseStorableJson(raw);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

function isMissing(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

export function isPositiveSafeInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

function optionalString(body: Record<string, unknown>, field: string, max: number): string | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw bad(`${field} must be a string`);
  if (v.length > max) throw bad(`${field} must be at most ${max} characters`);
  return v;
}

function requiredString(body: Record<string, unknown>, field: string, max: number): string {
  return optionalString(body, field, max) as string;
}

export function parseCreatePayment(body: Record<string, unknown>): CreatePaymentRequest {
  const missing = REQUIRED.filter((f) => isMissing(body[f]));
  if (missing.length > 0) throw bad(`missing required fields: ${missing.join(', ')}`);

  const externalUserId = requiredString(body, 'external_user_id', 255);
  if (!isPositiveSafeInteger(body.amount_minor))
    throw bad('amount_minor must be a positive integer');
  const currency = requiredString(body, 'currency', 16);
  const method = requiredString(body, 'method', 64);
  const returnUrl = requiredString(body, 'return_url', 2048);
  if (!isHttpUrl(returnUrl)) throw bad('return_url must be an absolute http(s) URL');

  const email = optionalString(body, 'email', 320);
  if (email !== null && email !== '' && !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw bad('email must be an email address');
  }

  const metadata = body.metadata ?? {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw bad('metadata must be a JSON object');
  }

  const invoicePrefix = body.invoice_prefix ?? null;
  if (
    invoicePrefix !== null &&
    (typeof invoicePrefix !== 'string' || !INVOICE_PREFIX_PATTERN.test(invoicePrefix))
  ) {
    throw bad(`invoice_prefix must match ${INVOICE_PREFIX_PATTERN.source}`);
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
