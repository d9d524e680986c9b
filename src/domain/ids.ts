import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Cryptographic randomness drawn 4 KiB at a time and handed out 16 bytes per payment or refund
 * id (12 per event or delivery id), as Node's own randomUUID does: one call into the system's
 * generator per 256 to 341 ids instead of one per id (issue 28). Each id's bytes are used once;
 * the bytes left at the end of the pool when an id needs more are skipped.
 */
const POOL = Buffer.alloc(16 * 256);
let poolOffset = POOL.length;

/** `bytes` (at most 16) fresh bytes of the pool as lowercase hex; each byte is used once. */
function pooledHex(bytes: number): string {
  if (poolOffset + bytes > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const id = POOL.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return id;
}

/** payment_id and refund_id: 32 lowercase hex characters from a cryptographic source (docs/api.md#identifiers). */
export function newId(): string {
  return pooledHex(16);
}

export function isPaymentId(v: string): boolean {
  return /^[0-9a-f]{32}$/.test(v);
}

export function newAppId(): string {
  return 'app_' + randomBytes(12).toString('hex');
}

/** An outbound event's id, stable across its deliveries (X-PAY-Event-Id). */
export function newEventId(): string {
  return 'evt_' + pooledHex(12);
}

/** From the same pool: a finalization draws an event id, a delivery id and two ledger ids. */
export function newDeliveryId(): string {
  return 'dlv_' + pooledHex(12);
}
