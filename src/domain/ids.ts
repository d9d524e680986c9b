import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Cryptographic randomness drawn 4 KiB at a time and handed out 16 bytes per id, as Node's
 * own randomUUID does: one call into the system's generator per 256 ids instead of one per id
 * (issue 28). Each id's bytes are used once.
 */
const POOL = Buffer.alloc(16 * 256);
let poolOffset = POOL.length;

/** payment_id and refund_id: 32 lowercase hex characters from a cryptographic source (docs/api.md#identifiers). */
export function newId(): string {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const id = POOL.toString('hex', poolOffset, poolOffset + 16);
  poolOffset += 16;
  return id;
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
