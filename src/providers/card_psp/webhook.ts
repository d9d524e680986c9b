/**
 * Inbound card_psp webhooks: Standard Webhooks verification (as Polar signs them) and decoding
 * of the {type, timestamp, data} body into the wire types the mapping switches on.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { BadReference, type InboundEvent } from '../types.js';
import { mapEvent } from './mapping.js';
import {
  BILLING_REASONS,
  CHECKOUT_EVENTS,
  CHECKOUT_STATUSES,
  INFORMATIONAL_EVENTS,
  ORDER_EVENTS,
  ORDER_STATUSES,
  REFUND_EVENTS,
  REFUND_STATUSES,
  SUBSCRIPTION_EVENTS,
  SUBSCRIPTION_STATUSES,
  type CardPspEvent,
  type DecodedCheckout,
  type DecodedOrder,
  type DecodedRefund,
  type DecodedSubscription,
  type WireMetadata,
} from './wire.js';

/** Standard Webhooks: a signature older or newer than this is refused (replay window). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The HMAC keys a card_psp webhook secret stands for. The provider has two derivations in
 * use: endpoints created before 2026-09-08 sign with the UTF-8 bytes of the whole secret,
 * `whsec_` prefix included; newer ones with the Standard Webhooks key, the base64 text after
 * `whsec_`, decoded. The provider's own SDK tries both, and so does the adapter.
 */
export function webhookKeys(secret: string): Buffer[] {
  const utf8 = Buffer.from(secret, 'utf8');
  const keys = [utf8];
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  // Strict base64 only: Buffer.from would silently skip stray characters.
  if (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(encoded)) {
    const decoded = Buffer.from(encoded, 'base64');
    if (decoded.length > 0 && !decoded.equals(utf8)) keys.push(decoded);
  }
  return keys;
}

/** The v1 signature with one key: HMAC-SHA256 of `${id}.${timestamp}.${body}`. */
export function standardWebhookSignature(
  key: Buffer,
  id: string,
  timestamp: string,
  rawBody: Buffer,
): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(rawBody).digest();
}

/**
 * Verification in explicit steps: headers present, timestamp within tolerance of our real
 * clock, then any `v1,<base64>` entry of the space-separated list equal to ours under either
 * key, in constant time. Never throws: anything malformed is simply not verified.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  nowMs: number = Date.now(),
): boolean {
  try {
    const id = headerValue(headers, 'webhook-id');
    const timestamp = headerValue(headers, 'webhook-timestamp');
    const signatures = headerValue(headers, 'webhook-signature');
    if (!secret || !id || !timestamp || !signatures) return false;
    if (!/^\d{1,12}$/.test(timestamp)) return false;
    if (Math.abs(nowMs / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return false;
    const expected = webhookKeys(secret).map((key) =>
      standardWebhookSignature(key, id, timestamp, rawBody),
    );
    let ok = false;
    for (const entry of signatures.split(' ')) {
      const comma = entry.indexOf(',');
      if (comma === -1 || entry.slice(0, comma) !== 'v1') continue;
      const given = Buffer.from(entry.slice(comma + 1), 'base64');
      // Keep looping after a match so timing does not reveal which entry or key matched.
      for (const mac of expected) {
        if (given.length === mac.length && timingSafeEqual(given, mac)) ok = true;
      }
    }
    return ok;
  } catch {
    return false;
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function oneOf<T extends string>(values: readonly T[], v: unknown): v is T {
  return typeof v === 'string' && (values as readonly string[]).includes(v);
}

function optString(o: Obj, key: string): string | null | undefined {
  const v = o[key];
  return typeof v === 'string' ? v : v === null ? null : undefined;
}

function optInt(o: Obj, key: string): number | undefined {
  const v = o[key];
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}

function metadataOf(o: Obj): WireMetadata | undefined {
  const m = o.metadata;
  if (!isObj(m)) return undefined;
  const out: WireMetadata = {};
  for (const [k, v] of Object.entries(m)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

function requireId(o: Obj, what: string): string {
  const id = o.id;
  if (typeof id !== 'string' || id === '') throw new BadReference(`card_psp ${what} without id`);
  return id;
}

function decodeCheckout(type: string, d: Obj): DecodedCheckout {
  const id = requireId(d, type);
  if (!oneOf(CHECKOUT_STATUSES, d.status)) {
    throw new BadReference(`card_psp ${type} ${id} with unknown status`);
  }
  return {
    id,
    status: d.status,
    metadata: metadataOf(d),
    subscription_id: optString(d, 'subscription_id'),
    failure_reason: optString(d, 'failure_reason'),
  };
}

function decodeSubscription(type: string, d: Obj): DecodedSubscription {
  return {
    id: requireId(d, type),
    status: oneOf(SUBSCRIPTION_STATUSES, d.status) ? d.status : undefined,
    current_period_end: optString(d, 'current_period_end'),
    checkout_id: optString(d, 'checkout_id'),
    metadata: metadataOf(d),
  };
}

function decodeOrder(type: string, d: Obj): DecodedOrder {
  return {
    id: requireId(d, type),
    status: oneOf(ORDER_STATUSES, d.status) ? d.status : undefined,
    billing_reason: oneOf(BILLING_REASONS, d.billing_reason) ? d.billing_reason : null,
    total_amount: optInt(d, 'total_amount'),
    net_amount: optInt(d, 'net_amount'),
    refunded_amount: optInt(d, 'refunded_amount'),
    currency: optString(d, 'currency') ?? undefined,
    checkout_id: optString(d, 'checkout_id'),
    subscription_id: optString(d, 'subscription_id'),
    subscription: isObj(d.subscription) ? decodeSubscription(type, d.subscription) : null,
    metadata: metadataOf(d),
  };
}

function decodeRefund(type: string, d: Obj): DecodedRefund {
  const id = requireId(d, type);
  if (!oneOf(REFUND_STATUSES, d.status)) {
    throw new BadReference(`card_psp ${type} ${id} with unknown status`);
  }
  return {
    id,
    status: d.status,
    amount: optInt(d, 'amount'),
    order_id: optString(d, 'order_id') ?? undefined,
    subscription_id: optString(d, 'subscription_id'),
    metadata: metadataOf(d),
    failure_reason: optString(d, 'failure_reason'),
  };
}

/**
 * Decodes a body into a known event, or null for an event type this adapter does not know
 * (the provider adds types over time; an unknown one is acknowledged without effect).
 */
export function decodeEvent(rawBody: Buffer): CardPspEvent | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new BadReference('card_psp body is not JSON');
  }
  if (!isObj(body) || typeof body.type !== 'string' || !isObj(body.data)) {
    throw new BadReference('card_psp body is not an event {type, data}');
  }
  const { type, data } = body;
  const timestamp = typeof body.timestamp === 'string' ? body.timestamp : '';
  if (oneOf(CHECKOUT_EVENTS, type)) return { type, timestamp, data: decodeCheckout(type, data) };
  if (oneOf(ORDER_EVENTS, type)) return { type, timestamp, data: decodeOrder(type, data) };
  if (oneOf(SUBSCRIPTION_EVENTS, type)) {
    return { type, timestamp, data: decodeSubscription(type, data) };
  }
  if (oneOf(REFUND_EVENTS, type)) return { type, timestamp, data: decodeRefund(type, data) };
  if (oneOf(INFORMATIONAL_EVENTS, type))
    return { type, timestamp, data: { metadata: metadataOf(data) } };
  return null;
}

export function parseCardPspWebhook(rawBody: Buffer): InboundEvent {
  const ev = decodeEvent(rawBody);
  if (ev) return mapEvent(ev);
  // Unknown type: still tie it to a payment when the body says which, else it is unplaceable.
  const body = JSON.parse(rawBody.toString('utf8')) as { type: string; data: Obj };
  const paymentId = metadataOf(body.data)?.payment_id;
  if (typeof paymentId !== 'string' || paymentId === '') {
    throw new BadReference(`card_psp ${body.type} carries no payment_id`);
  }
  return { eventType: body.type, paymentId, action: { kind: 'none' } };
}
