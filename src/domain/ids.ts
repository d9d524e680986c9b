import { randomBytes } from 'node:crypto';

/** payment_id and refund_id: 32 lowercase hex characters from a cryptographic source (docs/api.md#identifiers). */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

export function isPaymentId(v: string): boolean {
  return /^[0-9a-f]{32}$/.test(v);
}

export function newAppId(): string {
  return 'app_' + randomBytes(12).toString('hex');
}

/** An outbound event's id, stable across its deliveries (X-PAY-Event-Id). */
export function newEventId(): string {
  return 'evt_' + randomBytes(12).toString('hex');
}

export function newDeliveryId(): string {
  return 'dlv_' + randomBytes(12).toString('hex');
}
