import { createHmac } from 'node:crypto';

/** docs/api.md#webhook-signing: lowercase hex HMAC-SHA256 of `<timestamp>.<raw_body>` under the webhook secret. */
export function signWebhook(webhookSecret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', webhookSecret).update(`${timestamp}.${rawBody}`).digest('hex');
}
