import { decimalToMinor } from '../money.js';
import {
  NOTE_TO_PAYER_MAX,
  REFUND_ID_FIELD_MAX,
  type WpRefundResource,
  type WpCapture,
  type WpCaptureStatus,
} from './wire.js';
import { WpApiError, apiError } from './orders.js';

/** docs/api.md#refunds-per-provider: capture refunds up to about 180 days from the capture (end included). */
export const REFUND_WINDOW_MS = 180 * 86_400_000;

/** The provider's refusals (details[0].description, verbatim in `refund failed: ...`). */
export const REFUND_REFUSAL = {
  timeLimit: 'You are over the time limit to perform a refund on this capture.',
  amountExceeded:
    'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
  fullyRefunded: 'The capture has already been fully refunded.',
  currencyMismatch: 'The refund currency must be the currency of the capture.',
  notRefundable: 'The capture did not complete and cannot be refunded.',
} as const;

/** A refund whose note_to_payer contains this word (any case) stays PENDING (a simulator trigger, docs/api.md#test-mode). */
export const PENDING_TRIGGER = /pending/i;

/** status_details.reason of a refund failed with the refund_fail action. */
export const REFUND_FAILED_REASON = 'INSUFFICIENT_FUNDS';

export interface SimRefundEntry {
  refund: WpRefundResource;
  amountMinor: number;
  /** PayPal-Request-Id it was created with; a retry with it replays the refund. */
  requestId: string | null;
}

/** Every refund of one capture, keyed by capture id (kind `capture_refunds`). */
export interface SimCaptureRefunds {
  orderId: string;
  clientId: string;
  refunds: SimRefundEntry[];
}

export interface ValidRefundRequest {
  amount?: { currency: string; value: string };
  note?: string;
  customId?: string;
  invoiceId?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The provider's rules for a refund body; an empty body refunds what is left. */
export function validateRefund(raw: Buffer): ValidRefundRequest | WpApiError {
  const text = raw.toString('utf8').trim();
  let body: unknown = {};
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!isObject(body)) {
    return apiError(400, {
      issue: 'MALFORMED_REQUEST_JSON',
      description: 'The request JSON is not well formed.',
    });
  }
  const out: ValidRefundRequest = {};
  if (body.amount !== undefined) {
    const a = body.amount;
    if (!isObject(a) || typeof a.currency_code !== 'string' || typeof a.value !== 'string') {
      return apiError(400, {
        field: '/amount',
        location: 'body',
        issue: 'MISSING_REQUIRED_PARAMETER',
        description: 'A required field / parameter is missing.',
      });
    }
    if (!/^\d{1,10}\.\d{2}$/.test(a.value)) {
      return apiError(422, {
        field: '/amount/value',
        value: a.value,
        location: 'body',
        issue: 'DECIMAL_PRECISION',
        description: 'The amount must be a decimal with exactly two decimal places.',
      });
    }
    if (/^0+\.00$/.test(a.value)) {
      return apiError(422, {
        field: '/amount/value',
        value: a.value,
        location: 'body',
        issue: 'CANNOT_BE_ZERO_OR_NEGATIVE',
        description: 'Must be greater than zero.',
      });
    }
    out.amount = { currency: a.currency_code, value: a.value };
  }
  const fields: [string, number, keyof ValidRefundRequest][] = [
    ['note_to_payer', NOTE_TO_PAYER_MAX, 'note'],
    ['custom_id', REFUND_ID_FIELD_MAX, 'customId'],
    ['invoice_id', REFUND_ID_FIELD_MAX, 'invoiceId'],
  ];
  for (const [name, max, key] of fields) {
    const v = body[name];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length < 1 || v.length > max) {
      return apiError(400, {
        field: `/${name}`,
        location: 'body',
        issue: 'INVALID_STRING_LENGTH',
        description: `The value of a field is either too short or too long (1 to ${max}).`,
      });
    }
    if (key !== 'amount') out[key] = v;
  }
  return out;
}

/** Money still counted against the capture: completed and pending refunds. */
export function refundedMinor(refunds: readonly SimRefundEntry[]): number {
  return refunds
    .filter((r) => r.refund.status === 'COMPLETED' || r.refund.status === 'PENDING')
    .reduce((sum, r) => sum + r.amountMinor, 0);
}

export type RefundDecision =
  | { kind: 'replay'; entry: SimRefundEntry }
  | { kind: 'refused'; error: WpApiError }
  | { kind: 'refund'; amountMinor: number; status: 'COMPLETED' | 'PENDING' };

/**
 * The capture-refund rules, in the order the provider applies them: a repeated request id
 * replays; then the capture must have completed, be inside the window (measured from its
 * create_time on the simulator clock), not be fully refunded, and have room for the amount.
 */
export function decideRefund(input: {
  capture: WpCapture;
  refunds: readonly SimRefundEntry[];
  request: ValidRefundRequest;
  requestId: string | null;
  now: number;
  /** test_scenario refund_pending: every refund waits for the paying side. */
  alwaysPending?: boolean;
}): RefundDecision {
  const { capture, refunds, request, requestId, now } = input;
  const replay = requestId ? refunds.find((r) => r.requestId === requestId) : undefined;
  if (replay) return { kind: 'replay', entry: replay };
  const refusal = (issue: string, description: string): RefundDecision => ({
    kind: 'refused',
    error: apiError(422, { issue, description }),
  });
  const refundable: readonly WpCaptureStatus[] = ['COMPLETED', 'PARTIALLY_REFUNDED', 'REFUNDED'];
  if (!refundable.includes(capture.status)) {
    return refusal('CAPTURE_NOT_REFUNDABLE', REFUND_REFUSAL.notRefundable);
  }
  if (now - Date.parse(capture.create_time) > REFUND_WINDOW_MS) {
    return refusal('REFUND_TIME_LIMIT_EXCEEDED', REFUND_REFUSAL.timeLimit);
  }
  const currency = capture.amount.currency_code;
  const captured = decimalToMinor(capture.amount.value, currency) ?? 0;
  const remaining = captured - refundedMinor(refunds);
  if (remaining <= 0) return refusal('CAPTURE_FULLY_REFUNDED', REFUND_REFUSAL.fullyRefunded);
  let amountMinor = remaining;
  if (request.amount) {
    if (request.amount.currency !== currency) {
      return refusal('CURRENCY_MISMATCH', REFUND_REFUSAL.currencyMismatch);
    }
    amountMinor = decimalToMinor(request.amount.value, currency) ?? Number.POSITIVE_INFINITY;
  }
  if (amountMinor > remaining) {
    return refusal('REFUND_AMOUNT_EXCEEDED', REFUND_REFUSAL.amountExceeded);
  }
  const pending =
    input.alwaysPending === true ||
    (request.note !== undefined && PENDING_TRIGGER.test(request.note));
  const status = pending ? 'PENDING' : 'COMPLETED';
  return { kind: 'refund', amountMinor, status };
}

/** The capture's status as its completed refunds leave it (PayPal updates it the same way). */
export function captureStatusAfter(
  capture: WpCapture,
  refunds: readonly SimRefundEntry[],
): WpCaptureStatus {
  if (!['COMPLETED', 'PARTIALLY_REFUNDED', 'REFUNDED'].includes(capture.status)) {
    return capture.status;
  }
  const captured = decimalToMinor(capture.amount.value, capture.amount.currency_code) ?? 0;
  const done = refunds
    .filter((r) => r.refund.status === 'COMPLETED')
    .reduce((sum, r) => sum + r.amountMinor, 0);
  if (done === 0) return 'COMPLETED';
  return done >= captured ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
}
