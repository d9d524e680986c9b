import { createHmac, timingSafeEqual } from 'node:crypto';
import { PaygateWebhookError } from './errors.js';
import type { DisputeEvent, WebhookEvent, WebhookEventType } from './types.js';

/** Fetch API `Headers`, or Node's `req.headers` (lowercase names, string or string[] values). */
export type WebhookHeaders =
  { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest accepted distance between the delivery's timestamp and now; default 300 s. */
  toleranceSec?: number;
  /**
   * Accept dispute.opened and dispute.closed too: for a webhook endpoint subscribed to them.
   * Without it they are refused as an unknown event type, as an app built for webhook_url
   * expects.
   */
  allowDisputes?: boolean;
}

const EVENT_TYPES: ReadonlySet<string> = new Set<WebhookEventType>([
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'refund.succeeded',
  'refund.failed',
  'subscription.canceled',
  'subscription.revoked',
]);
const DISPUTE_TYPES: ReadonlySet<string> = new Set<DisputeEvent['event']>([
  'dispute.opened',
  'dispute.closed',
]);

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** The id of the event a delivery carries (X-PAY-Event-Id), stable across its retries. */
export function webhookEventId(headers: WebhookHeaders): string | undefined {
  return headerValue(headers, 'x-pay-event-id');
}

/** One hex signature against one secret, in constant time. */
function matches(secret: string, timestamp: string, body: Uint8Array, signature: string): boolean {
  const expected = createHmac('sha256', secret)
    .update(`${timestamp}.`, 'utf8')
    .update(body)
    .digest();
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : undefined;
  return given !== undefined && timingSafeEqual(expected, given);
}

/**
 * Checks a delivery from the gateway and returns its event. The signature is the lowercase
 * hex HMAC-SHA256 of `<X-PAY-Timestamp>.<raw body>` under the webhook secret, so pass the
 * body exactly as received: a Buffer/Uint8Array, or a string only if nothing re-encoded or
 * re-serialized it. During a secret rotation window the gateway sends X-PAY-Signature under
 * the old secret and X-PAY-Signature-Next under the new one: a match of either with the
 * secret you hold (or any of several, while you switch) verifies. Throws
 * PaygateWebhookError when anything does not match.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  webhookSecret: string | readonly string[],
  options: VerifyOptions & { allowDisputes: true },
): WebhookEvent | DisputeEvent;
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  webhookSecret: string | readonly string[],
  options?: VerifyOptions,
): WebhookEvent;
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  webhookSecret: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent | DisputeEvent {
  const secrets = (typeof webhookSecret === 'string' ? [webhookSecret] : [...webhookSecret]).filter(
    (x) => x !== '',
  );
  if (secrets.length === 0) throw new PaygateWebhookError('webhook secret is empty');
  const timestamp = headerValue(headers, 'x-pay-timestamp');
  const signature = headerValue(headers, 'x-pay-signature');
  const next = headerValue(headers, 'x-pay-signature-next');
  if (!timestamp || !signature) throw new PaygateWebhookError('missing signature headers');
  if (!/^\d{1,15}$/.test(timestamp)) throw new PaygateWebhookError('bad timestamp');
  const tolerance = options.toleranceSec ?? 300;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > tolerance) {
    throw new PaygateWebhookError('timestamp out of range');
  }

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const signatures = next ? [signature, next] : [signature];
  // Every pair is computed (no early exit), so timing does not tell which one matched.
  let ok = false;
  for (const secret of secrets) {
    for (const sig of signatures) ok = matches(secret, timestamp, body, sig) || ok;
  }
  if (!ok) throw new PaygateWebhookError('bad signature');

  let event: unknown;
  try {
    event = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw new PaygateWebhookError('invalid JSON body');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new PaygateWebhookError('invalid JSON body');
  }
  const kind = (event as { event?: unknown }).event;
  const known =
    typeof kind === 'string' &&
    (EVENT_TYPES.has(kind) || (options.allowDisputes === true && DISPUTE_TYPES.has(kind)));
  if (!known) {
    throw new PaygateWebhookError(`unknown event type: ${String(kind)}`);
  }
  return event as WebhookEvent;
}
