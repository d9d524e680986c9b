import { createHash, timingSafeEqual } from 'node:crypto';
import { isPaymentId } from '../../domain/ids.js';
import { BadReference, type InboundEvent } from '../types.js';
import { mapTransactionStatus } from './mapping.js';
import type { NotificationWire } from './wire.js';

/**
 * A notification's body is read by each mode's verification and by the parse: parsed once
 * per request body (the same Buffer throughout the request), and only read, never changed.
 */
const parsedBodies = new WeakMap<Buffer, Record<string, unknown> | null>();

function parseObject(rawBody: Buffer): Record<string, unknown> | null {
  const cached = parsedBodies.get(rawBody);
  if (cached !== undefined) return cached;
  let body: Record<string, unknown> | null = null;
  try {
    const v: unknown = JSON.parse(rawBody.toString('utf8'));
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      body = v as Record<string, unknown>;
    }
  } catch {
    body = null;
  }
  parsedBodies.set(rawBody, body);
  return body;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** signature_key = SHA-512 hex of order_id + status_code + gross_amount + server key. */
export function notificationSignature(
  orderId: string,
  statusCode: string,
  grossAmount: string,
  serverKey: string,
): string {
  return createHash('sha512')
    .update(orderId + statusCode + grossAmount + serverKey, 'utf8')
    .digest('hex');
}

/**
 * Verification as explicit steps: the secret (the server key, as issued), the signed message
 * (three fields exactly as they appear in the body), the signature, a constant-time compare.
 * Anything malformed is simply not verified.
 */
export function verifyNotification(serverKey: string, rawBody: Buffer): boolean {
  if (!serverKey) return false;
  const body = parseObject(rawBody);
  if (!body) return false;
  const orderId = str(body.order_id);
  const statusCode = str(body.status_code);
  const grossAmount = str(body.gross_amount);
  const given = str(body.signature_key);
  if (orderId === undefined || statusCode === undefined || grossAmount === undefined || !given) {
    return false;
  }
  const expected = Buffer.from(
    notificationSignature(orderId, statusCode, grossAmount, serverKey),
    'utf8',
  );
  const actual = Buffer.from(given.toLowerCase(), 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function parseNotification(rawBody: Buffer): InboundEvent {
  const body = parseObject(rawBody);
  if (!body) throw new BadReference('body is not a JSON object');
  const orderId = str(body.order_id);
  // order_id is our payment_id; anything else cannot be ours.
  if (!orderId || !isPaymentId(orderId)) {
    throw new BadReference('order_id missing or not a payment id');
  }
  const transactionId = str(body.transaction_id);
  if (!transactionId) throw new BadReference('transaction_id missing');
  const status = str(body.transaction_status) ?? '';
  const n = body as Partial<NotificationWire>;
  const action = mapTransactionStatus({
    transaction_status: status,
    gross_amount: str(n.gross_amount) ?? '',
    status_message: str(n.status_message) ?? '',
    transaction_id: transactionId,
    fraud_status: str(n.fraud_status),
    currency: str(n.currency) ?? 'IDR',
    refund_amount: str(n.refund_amount),
    refunds: Array.isArray(n.refunds) ? n.refunds : undefined,
  });
  // A declined refund is the one thing taken from a notification's body (the status API lists
  // completed refunds only), so its signed status_code must say so: 202, as the provider
  // sends it. Anything else naming a failed refund is an edited body: nothing to apply.
  const declinedRefund = action.kind === 'refund' && action.outcome === 'failed';
  return {
    eventType: status || 'unknown',
    paymentId: orderId,
    providerRef: transactionId,
    action: declinedRefund && str(body.status_code) !== '202' ? { kind: 'none' } : action,
  };
}
