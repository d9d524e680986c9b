/**
 * The search parameters of GET /admin/payments (docs/api.md): pure parsing, each bad value a
 * 400 with a plain-text reason.
 */
import { parseTimestamp } from './adminQuery.js';
import { apiError } from './errors.js';
import { PARAMS } from './schemas.js';

export const SEARCH_Q_MAX = PARAMS.q.maxLength;

/** Text PostgreSQL can store and compare: no NUL or other control characters, no lone surrogates. */
export function isText(s: string): boolean {
  return (
    // eslint-disable-next-line no-control-regex
    !/[\u0000-\u001f\u007f]/.test(s) &&
    !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)
  );
}

export interface PaymentSearch {
  /** Exact value matched against external_user_id, email, invoice_number and provider_ref. */
  q: string | null;
  /** Inclusive bounds of a payment id prefix (8 to 32 hex characters of q), or null. */
  idRange: [string, string] | null;
  appId: string | null;
  createdFrom: Date | null;
  createdTo: Date | null;
  amountMin: number | null;
  amountMax: number | null;
}

function text(name: string, raw: string | undefined, max: number): string | null {
  if (raw === undefined || raw === '') return null;
  if (raw.length > max || !isText(raw)) {
    throw apiError('invalid', `${name} must be at most ${max} characters of text`);
  }
  return raw;
}

function amount(name: string, raw: string | undefined): number | null {
  if (raw === undefined || raw === '') return null;
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw apiError('invalid', `${name} must be a non-negative integer`);
  }
  return Number(raw);
}

export function parsePaymentSearch(q: {
  q?: string;
  app_id?: string;
  created_from?: string;
  created_to?: string;
  amount_min?: string;
  amount_max?: string;
}): PaymentSearch {
  const term = text('q', q.q, SEARCH_Q_MAX);
  let idRange: [string, string] | null = null;
  const lower = term?.toLowerCase() ?? '';
  if (/^[0-9a-f]{8,32}$/.test(lower)) {
    idRange = [lower.padEnd(32, '0'), lower.padEnd(32, 'f')];
  }
  const createdFrom = parseTimestamp('created_from', q.created_from);
  const createdTo = parseTimestamp('created_to', q.created_to);
  if (createdFrom && createdTo && createdFrom.getTime() > createdTo.getTime()) {
    throw apiError('invalid', 'created_from must not be after created_to');
  }
  const amountMin = amount('amount_min', q.amount_min);
  const amountMax = amount('amount_max', q.amount_max);
  if (amountMin !== null && amountMax !== null && amountMin > amountMax) {
    throw apiError('invalid', 'amount_min must not be greater than amount_max');
  }
  return {
    q: term,
    idRange,
    appId: text('app_id', q.app_id, PARAMS.appId.maxLength),
    createdFrom,
    createdTo,
    amountMin,
    amountMax,
  };
}
