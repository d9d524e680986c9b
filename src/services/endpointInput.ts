/** Parsers of webhook endpoint request bodies (docs/api.md#webhook-endpoints): exact 400 texts. */
import {
  ENDPOINT_DESCRIPTION_MAX,
  ENDPOINT_MESSAGES as MSG,
  ENDPOINT_URL_MAX,
  GRACE_HOURS_MAX,
  ROTATE,
} from '../domain/endpointSchemas.js';
import { apiError } from '../domain/errors.js';
import { EVENT_TYPES } from '../domain/events.js';
import { isHttpUrl } from '../domain/paymentRequest.js';
import { notStringMessage, tooLongMessage } from '../domain/schemas.js';

const bad = (reason: string) => apiError('invalid', reason);

export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad(MSG.body);
  return body as Record<string, unknown>;
}

export function parseUrl(v: unknown): string {
  if (typeof v !== 'string' || v.length > ENDPOINT_URL_MAX || !isHttpUrl(v)) throw bad(MSG.url);
  return v;
}

export function parseEventTypes(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every((t) => typeof t === 'string')) {
    throw bad(MSG.event_types);
  }
  const kinds = [...new Set(v as string[])];
  if (kinds.includes('*')) {
    if (kinds.length > 1) throw bad(MSG.star);
    return kinds;
  }
  if (!kinds.every((k) => (EVENT_TYPES as readonly string[]).includes(k))) {
    throw bad(MSG.event_type);
  }
  return kinds;
}

export function parseDescription(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw bad(notStringMessage('description'));
  if (v.length > ENDPOINT_DESCRIPTION_MAX) {
    throw bad(tooLongMessage('description', ENDPOINT_DESCRIPTION_MAX));
  }
  return v;
}

/** grace_hours of rotate-secret and regenerate-keys; an absent body or field means 0. */
export function parseGraceHours(body: unknown): number {
  if (body === undefined || body === null) return 0;
  const b = objectBody(body);
  const g = b.grace_hours ?? 0;
  if (typeof g !== 'number' || !Number.isInteger(g) || g < 0 || g > GRACE_HOURS_MAX) {
    throw bad(ROTATE.messages.grace_hours);
  }
  return g;
}
