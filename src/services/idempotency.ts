import { bodySha256Hex } from '../auth/crypto.js';
import * as idem from '../db/idempotency.js';
import type { Pool } from '../db/pool.js';
import { apiError } from '../domain/errors.js';
import { IDEMPOTENCY_KEY } from '../domain/schemas.js';

export interface StoredResponse {
  status: number;
  body: string;
  /** Everything the request wrote is on disk (its last write committed synchronously). */
  durable?: boolean;
}

export interface Claim {
  scope: idem.IdempotencyScope | null;
  /** The resource an earlier, failed attempt with this key created; resume it. */
  resumeId: string | null;
}

/** Longer than any provider call, so a live owner never loses its claim. */
export const CLAIM_LEASE_MS = 60_000;
const LEASE_MS = CLAIM_LEASE_MS;
/** How long a duplicate waits for the first request before giving up with a 503. */
const MAX_WAIT_MS = 65_000;

/** The key's scope (docs/api.md#idempotency): per app and endpoint; null when the request carries no key. */
export function idempotencyScope(
  appId: string,
  endpoint: string,
  key: string | undefined,
): idem.IdempotencyScope | null {
  return key === undefined ? null : { appId, endpoint, key };
}

const PRINTABLE = new RegExp(IDEMPOTENCY_KEY.schema.pattern);

export function validIdempotencyKey(key: string): boolean {
  const { minLength, maxLength } = IDEMPOTENCY_KEY.schema;
  return key.length >= minLength && key.length <= maxLength && PRINTABLE.test(key);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * docs/api.md#idempotency: runs handler at most once per (app, endpoint, key) at a time. A duplicate waits for
 * the first and replays its stored 2xx; a 4xx/5xx or a crash frees the key for a retry,
 * which resumes the resource the failed attempt created instead of making a second one.
 */
export async function runIdempotent(
  pool: Pool,
  durablePool: Pool,
  scope: idem.IdempotencyScope | null,
  rawBody: Buffer,
  handler: (claim: Claim) => Promise<StoredResponse>,
): Promise<StoredResponse> {
  if (!scope) return handler({ scope: null, resumeId: null });
  if (!validIdempotencyKey(scope.key)) {
    throw apiError('invalid', IDEMPOTENCY_KEY.message);
  }
  const hash = bodySha256Hex(rawBody);
  const started = Date.now();
  let delay = 10;
  for (;;) {
    let resumeId: string | null | undefined;
    if (await idem.tryInsertClaim(pool, scope, hash, LEASE_MS)) {
      resumeId = null;
    } else {
      const row = await idem.readClaim(pool, scope);
      if (!row) continue;
      if (row.expired) {
        await idem.deleteIfExpired(pool, scope);
        continue;
      }
      if (row.request_hash !== hash && row.state !== 'released') {
        throw apiError('idempotency_conflict');
      }
      if (row.state === 'completed') {
        // A replay writes nothing, but a commit is visible before a synchronous standby
        // confirms it: the replay waits at the durability barrier like the first answer did.
        return { status: row.response_status as number, body: row.response_body as string };
      }
      if (row.state === 'released' || row.lease_expired) {
        const taken = await idem.takeOver(pool, scope, row, hash, LEASE_MS);
        if (taken) resumeId = taken.resourceId;
      }
    }
    if (resumeId !== undefined) return own(pool, durablePool, scope, resumeId, handler);
    if (Date.now() - started > MAX_WAIT_MS) {
      throw apiError('unavailable').withHeaders({ 'Retry-After': '1' });
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 200);
  }
}

async function own(
  pool: Pool,
  durablePool: Pool,
  scope: idem.IdempotencyScope,
  resumeId: string | null,
  handler: (claim: Claim) => Promise<StoredResponse>,
): Promise<StoredResponse> {
  let response: StoredResponse;
  try {
    response = await handler({ scope, resumeId });
  } catch (err) {
    await idem.release(pool, scope).catch(() => undefined);
    throw err;
  }
  // The last write of the request, committed synchronously: it flushes every earlier one.
  if (response.status >= 200 && response.status < 300) {
    await idem.complete(durablePool, scope, response.status, response.body);
  } else {
    await idem.release(durablePool, scope);
  }
  return { ...response, durable: true };
}
