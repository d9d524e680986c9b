import { createHash } from 'node:crypto';
import { simulatorEndpoint } from '../../src/providers/testMode.js';

/** The test-mode server key the gateway's idr_psp simulator and adapter share. */
export function idrTestServerKey(masterKey: Buffer): string {
  return simulatorEndpoint('idr_psp', masterKey, 'http://unused').credentials.serverKey as string;
}

/**
 * A notification in the provider's shape, signed independently of the gateway's code:
 * signature_key = SHA-512 hex of order_id + status_code + gross_amount + server key.
 */
export function idrNotification(
  serverKey: string,
  f: {
    orderId: string;
    status: string;
    grossAmount: number;
    transactionId?: string;
    statusMessage?: string;
    /** The provider's own code where it differs from the status's usual one (202: a declined refund). */
    statusCode?: string;
  },
): string {
  const statusCode =
    f.statusCode ??
    (f.status === 'settlement' || f.status === 'capture'
      ? '200'
      : f.status === 'pending'
        ? '201'
        : '202');
  const gross = `${f.grossAmount}.00`;
  const body = {
    transaction_time: '2026-11-22 12:00:00',
    transaction_status: f.status,
    transaction_id: f.transactionId ?? '7d4b4a56-0000-4000-8000-000000000001',
    status_message: f.statusMessage ?? `midtrans payment notification (${f.status})`,
    status_code: statusCode,
    signature_key: createHash('sha512')
      .update(`${f.orderId}${statusCode}${gross}${serverKey}`)
      .digest('hex'),
    payment_type: 'qris',
    order_id: f.orderId,
    merchant_id: 'G000000000',
    gross_amount: gross,
    fraud_status: 'accept',
    currency: 'IDR',
  };
  return JSON.stringify(body);
}

export async function postWebhook(
  baseUrl: string,
  provider: string,
  body: string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${baseUrl}/webhooks/${provider}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    status: res.status,
    text: await res.text(),
    contentType: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
  };
}
