import { createHmac } from 'node:crypto';

/** Spec 5.3: lowercase hex HMAC-SHA256 of `<timestamp>.<raw_body>` under the webhook secret. */
export function signWebhook(webhookSecret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', webhookSecret).update(`${timestamp}.${rawBody}`).digest('hex');
}
