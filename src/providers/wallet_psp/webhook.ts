import { X509Certificate, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderEndpointConfig } from '../../config.js';
import { BadReference, type InboundEvent } from '../types.js';
import { apiCall } from './client.js';
import type { WpDispute } from './disputeWire.js';
import { eventAction, isKnownEventType } from './mapping.js';
import {
  WP_AUTH_ALGO,
  WP_HEADER,
  type WpCapture,
  type WpOrder,
  type WpRefund,
  type WpVerifySignatureRequest,
  type WpVerifySignatureResponse,
  type WpWebhookEvent,
} from './wire.js';

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320); zlib.crc32 only exists from Node 20.15.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The string the provider signs: transmission id, time, our webhook id, CRC32 of the body. */
export function signedMessage(
  transmissionId: string,
  transmissionTime: string,
  webhookId: string,
  rawBody: Uint8Array,
): string {
  return `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(rawBody)}`;
}

const CERT_CACHE_MAX = 32;
const CERT_FETCH_TIMEOUT_MS = 5000;
const CERT_MAX_BYTES = 64 * 1024;
const VERIFY_API_TIMEOUT_MS = 5000;
/** Verification keys by certificate URL; certificates are immutable at their URL. */
const certCache = new Map<string, KeyObject>();

/** Tests only. */
export function clearCertCache(): void {
  certCache.clear();
}

/**
 * PayPal's API hosts by environment. Its SDKs call the `api-m` hosts, while the certificate
 * URLs of its webhooks name the `api` hosts; either host of the environment the base URL
 * points at may serve the signing certificate, and no host of the other environment.
 */
const PAYPAL_HOSTS: readonly (readonly string[])[] = [
  ['api.paypal.com', 'api-m.paypal.com'],
  ['api.sandbox.paypal.com', 'api-m.sandbox.paypal.com'],
];

/** The certificate path of PayPal's webhook certificates. */
const PAYPAL_CERT_PATH = '/v1/notifications/certs/';

/**
 * Where a certificate may be fetched from. With a base URL on a PayPal host: HTTPS, a PayPal
 * host of the same environment (sandbox or live), under PayPal's certificate path. With any
 * other base URL (the simulator, a test double): the same origin, under the base path.
 * Anything else (another host, a look-alike host such as api.paypal.com.evil.net, userinfo
 * tricks, a query) is never fetched.
 */
export function certUrlAllowed(certUrl: string, baseUrl: string): boolean {
  let cert: URL;
  let base: URL;
  try {
    cert = new URL(certUrl);
    base = new URL(baseUrl);
  } catch {
    return false;
  }
  if (cert.username || cert.password || cert.search || cert.hash) return false;
  if (cert.pathname.includes('/../')) return false;
  const environment = PAYPAL_HOSTS.find((hosts) => hosts.includes(base.hostname));
  if (environment) {
    return (
      cert.protocol === 'https:' &&
      cert.port === '' &&
      environment.includes(cert.hostname) &&
      cert.pathname.startsWith(PAYPAL_CERT_PATH)
    );
  }
  if (cert.origin !== base.origin) return false;
  const basePath = base.pathname.replace(/\/+$/, '');
  return cert.pathname.startsWith(basePath + '/');
}

/** A PEM X.509 certificate (the provider's form; its first one if a chain) or an SPKI key. */
export function keyFromPem(pem: string, now: number = Date.now()): KeyObject | null {
  if (pem.includes('-----BEGIN CERTIFICATE-----')) {
    const cert = new X509Certificate(pem);
    if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) < now) return null;
    return cert.publicKey;
  }
  if (pem.includes('-----BEGIN PUBLIC KEY-----')) return createPublicKey(pem);
  return null;
}

async function loadKey(certUrl: string): Promise<KeyObject | null> {
  const cached = certCache.get(certUrl);
  if (cached) return cached;
  const res = await fetch(certUrl, {
    redirect: 'error',
    signal: AbortSignal.timeout(CERT_FETCH_TIMEOUT_MS),
  });
  if (res.status !== 200) return null;
  const buf = Buffer.from(await res.arrayBuffer());
  if (buf.length > CERT_MAX_BYTES) return null;
  const key = keyFromPem(buf.toString('utf8'));
  if (!key || key.asymmetricKeyType !== 'rsa') return null;
  if (certCache.size >= CERT_CACHE_MAX) {
    const oldest = certCache.keys().next().value;
    if (oldest !== undefined) certCache.delete(oldest);
  }
  certCache.set(certUrl, key);
  return key;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The fallback costs a call to the provider per delivery, and anyone can post a delivery
 * naming a certificate we cannot use. Verification runs before the webhook route's
 * per-source limit can refuse, so the calls are bounded here, per instance: a burst of 20,
 * then 60 a minute. Past that a delivery is refused (401); the provider redelivers its own.
 */
const FALLBACK_BURST = 20;
const FALLBACK_PER_MS = 1000;
let fallbackAllowance = FALLBACK_BURST;
let fallbackRefilledAt = Date.now();

function takeFallbackAllowance(now: number = Date.now()): boolean {
  const earned = Math.floor((now - fallbackRefilledAt) / FALLBACK_PER_MS);
  if (earned > 0) {
    fallbackAllowance = Math.min(FALLBACK_BURST, fallbackAllowance + earned);
    fallbackRefilledAt += earned * FALLBACK_PER_MS;
  }
  if (fallbackAllowance <= 0) return false;
  fallbackAllowance--;
  return true;
}

/** Tests only: a full allowance. */
export function resetFallbackAllowance(): void {
  fallbackAllowance = FALLBACK_BURST;
  fallbackRefilledAt = Date.now();
}

async function loadKeySafely(certUrl: string): Promise<KeyObject | null> {
  try {
    return await loadKey(certUrl);
  } catch {
    return null;
  }
}

/**
 * The provider's own check, for a delivery whose certificate we cannot use ourselves: its
 * verify-webhook-signature API at the configured base URL, with our OAuth credentials. Only
 * an answer of SUCCESS verifies; a refusal, an error or no answer is false (the provider
 * redelivers a webhook that was not acknowledged).
 */
async function verifyWithProvider(
  endpoint: ProviderEndpointConfig,
  req: Omit<WpVerifySignatureRequest, 'webhook_event'>,
  rawBody: Buffer,
): Promise<boolean> {
  let event: unknown;
  try {
    event = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return false;
  }
  if (!isObject(event) || !takeFallbackAllowance()) return false;
  try {
    const res = await apiCall(
      { endpoint, timeoutMs: VERIFY_API_TIMEOUT_MS },
      'POST',
      '/v1/notifications/verify-webhook-signature',
      { body: { ...req, webhook_event: event } satisfies WpVerifySignatureRequest },
    );
    const answer = res.body as Partial<WpVerifySignatureResponse> | null;
    return res.status === 200 && isObject(answer) && answer.verification_status === 'SUCCESS';
  } catch {
    return false;
  }
}

/**
 * How old a transmission may be: the provider redelivers an unacknowledged webhook for up to
 * three days, a day more covers slow retries and clock drift. Older, or more than five
 * minutes ahead of our clock: not verified, whatever its signature.
 */
export const MAX_TRANSMISSION_AGE_MS = 4 * 86_400_000;
export const MAX_TRANSMISSION_SKEW_MS = 5 * 60_000;

/** A transmission time the provider could have sent now (ISO 8601, within the bounds above). */
export function transmissionTimeAcceptable(time: string, nowMs: number): boolean {
  const t = Date.parse(time);
  if (Number.isNaN(t)) return false;
  return nowMs - t <= MAX_TRANSMISSION_AGE_MS && t - nowMs <= MAX_TRANSMISSION_SKEW_MS;
}

/**
 * Verification as the provider documents it, in explicit steps: headers present, a
 * transmission time inside the age bounds, algorithm expected, certificate from an allowed URL, signed message rebuilt from the raw bytes,
 * RSA-SHA256 check. A certificate we must not fetch (another host) or cannot (unreachable,
 * not a certificate) is never a reason to trust the delivery: the provider's own
 * verify-webhook-signature API decides then. Never throws: any failure is false (401 'bad
 * signature').
 */
export async function verifyWebhook(
  endpoint: ProviderEndpointConfig,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  nowMs: number = Date.now(),
): Promise<boolean> {
  try {
    const transmissionId = headerValue(headers, WP_HEADER.transmissionId);
    const transmissionTime = headerValue(headers, WP_HEADER.transmissionTime);
    const sig = headerValue(headers, WP_HEADER.transmissionSig);
    const certUrl = headerValue(headers, WP_HEADER.certUrl);
    const algo = headerValue(headers, WP_HEADER.authAlgo);
    if (!transmissionId || !transmissionTime || !sig || !certUrl || !endpoint.webhookSecret) {
      return false;
    }
    if (algo !== WP_AUTH_ALGO) return false;
    if (!transmissionTimeAcceptable(transmissionTime, nowMs)) return false;
    const signature = Buffer.from(sig, 'base64');
    if (signature.length === 0) return false;
    const key = certUrlAllowed(certUrl, endpoint.baseUrl) ? await loadKeySafely(certUrl) : null;
    if (!key) {
      return verifyWithProvider(
        endpoint,
        {
          auth_algo: algo,
          cert_url: certUrl,
          transmission_id: transmissionId,
          transmission_sig: sig,
          transmission_time: transmissionTime,
          webhook_id: endpoint.webhookSecret,
        },
        rawBody,
      );
    }
    const message = signedMessage(
      transmissionId,
      transmissionTime,
      endpoint.webhookSecret,
      rawBody,
    );
    return verify('sha256', Buffer.from(message, 'utf8'), key, signature);
  } catch {
    return false;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Our payment id and the order id, wherever this resource type carries them. */
function references(event: WpWebhookEvent): { paymentId?: string; providerRef?: string } {
  const r = event.resource;
  if (!isObject(r)) return {};
  if (event.resource_type === 'checkout-order' || event.event_type.startsWith('CHECKOUT.ORDER.')) {
    const order = r as Partial<WpOrder>;
    const unit = Array.isArray(order.purchase_units) ? order.purchase_units[0] : undefined;
    return { paymentId: str(unit?.custom_id), providerRef: str(order.id) };
  }
  if (event.resource_type === 'dispute' || event.event_type.startsWith('CUSTOMER.DISPUTE.')) {
    // A dispute names the payment only through the disputed transaction's custom field.
    const tx = (r as Partial<WpDispute>).disputed_transactions?.[0];
    return { paymentId: str(tx?.custom) };
  }
  const res = r as Partial<WpCapture> | Partial<WpRefund>;
  return {
    paymentId: str(res.custom_id),
    providerRef: str(res.supplementary_data?.related_ids?.order_id),
  };
}

/** Parses a verified body into the gateway's terms; the mapping itself is in mapping.ts. */
export function parseWebhook(_headers: IncomingHttpHeaders, rawBody: Buffer): InboundEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new BadReference('body is not JSON');
  }
  if (!isObject(parsed) || typeof parsed.event_type !== 'string') {
    throw new BadReference('not a wallet_psp event');
  }
  const event = parsed as unknown as WpWebhookEvent;
  const summary = typeof event.summary === 'string' ? event.summary : '';
  const eventType = event.event_type;
  const { paymentId, providerRef } = references(event);
  // An event type we do not use (disputes, billing...) is acknowledged, not refused: the
  // provider would otherwise redeliver it for days.
  if (!isKnownEventType(eventType)) {
    const out: InboundEvent = { eventType, action: { kind: 'none' } };
    if (paymentId) out.paymentId = paymentId;
    if (providerRef) out.providerRef = providerRef;
    return out;
  }
  if (!paymentId && !providerRef && eventType.startsWith('CUSTOMER.DISPUTE.')) {
    // A case on a payment made outside the gateway: acknowledged, or redelivered for days.
    return { eventType, action: { kind: 'none' } };
  }
  if (!paymentId && !providerRef) {
    throw new BadReference(`${eventType} carries no custom_id or order id`);
  }
  const out: InboundEvent = { eventType, action: eventAction(eventType, event.resource, summary) };
  if (paymentId) out.paymentId = paymentId;
  if (providerRef) out.providerRef = providerRef;
  return out;
}
