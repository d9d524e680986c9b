import { apiError } from '../domain/errors.js';
import type { SourceRateLimiter } from '../services/sourceRateLimit.js';
import { safeEqual } from './crypto.js';

export function authenticateAdmin(authorization: string | undefined, adminToken: string): void {
  const m = /^Bearer (.+)$/.exec(authorization ?? '');
  if (!m || !safeEqual(m[1] as string, adminToken)) throw apiError('unauthorized');
}

/** What the admin token's guard needs from the process. */
export interface AdminAuthGuard {
  adminToken: string;
  failures: SourceRateLimiter;
  log: { warn(obj: object, msg: string): void };
  /** Counts a refusal with 429 (a metric). */
  onLimited(): void;
}

/**
 * The admin token, throttled per source address (docs/operations.md#hostile-clients). A
 * request that presents a credential that is not the token costs its source one failure;
 * with none left, every admin request from it is refused before the token is looked at, the
 * right one included, so guessing cannot go on. The limit refills by itself: an operator
 * who shares the address waits out Retry-After, never more. A request without any
 * Authorization header guesses nothing and costs nothing.
 */
export function authenticateAdminFrom(
  guard: AdminAuthGuard,
  authorization: string | undefined,
  source: string,
): void {
  const state = guard.failures.check(source);
  if (state !== 'open') {
    guard.onLimited();
    // The token is never logged: a near miss would give most of it away.
    if (state === 'newly_limited') {
      guard.log.warn({ source }, 'failed admin authentications over the limit');
    }
    throw apiError('too_many_failed_authentications').withHeaders({
      'Retry-After': String(guard.failures.retryAfterSeconds(source)),
    });
  }
  try {
    authenticateAdmin(authorization, guard.adminToken);
  } catch (err) {
    if (authorization !== undefined) guard.failures.spend(source);
    throw err;
  }
}
