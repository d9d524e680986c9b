import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { simulatorEndpoint } from '../../src/providers/testMode.js';

/**
 * The provider's own Standard Webhooks library, keyed with the test-mode card_psp secret the
 * simulator and the adapter share (the key after `whsec_`, as newer endpoints sign).
 */
export function cardPspTestSigner(masterKey: Buffer): Webhook {
  const secret = simulatorEndpoint('card_psp', masterKey, 'http://unused').webhookSecret;
  return new Webhook(secret as string);
}

/** Posts one card_psp event to the gateway as the provider sends it, signed by `signer`. */
export async function postCardPspEvent(gatewayUrl: string, signer: Webhook, body: string) {
  const id = `msg_${randomBytes(8).toString('hex')}`;
  const at = new Date();
  const res = await fetch(`${gatewayUrl}/webhooks/card_psp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signer.sign(id, at, body),
    },
    body,
  });
  return {
    status: res.status,
    text: await res.text(),
    contentType: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
  };
}
