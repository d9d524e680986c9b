import { createHmac, randomBytes } from 'node:crypto';

/**
 * The simulator's own Standard Webhooks signer, written apart from the adapter's verifier so
 * that a test of one against the other means something. docs/providers/card_psp.md#webhooks-standard-webhooks: the key is the secret string's
 * UTF-8 bytes as issued.
 */
export function signCardPspEvent(
  secret: string,
  body: string,
  nowMs: number = Date.now(),
): Record<string, string> {
  const id = `msg_${randomBytes(12).toString('hex')}`;
  const timestamp = String(Math.floor(nowMs / 1000));
  const mac = createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}
