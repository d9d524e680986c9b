import { apiError } from '../domain/errors.js';
import type { SourceRateLimiter } from '../services/sourceRateLimit.js';
import { safeEqual } from './crypto.js';
import type { Role } from './roles.js';

/** Personal API tokens start with this (docs/api.md#operator-tokens). */
export const OPERATOR_TOKEN_PREFIX = 'pgo_';

/** Who is asking: ADMIN_TOKEN (root), or an operator by personal token or dashboard session. */
export type Actor =
  | { kind: 'root' }
  | {
      kind: 'operator';
      id: string;
      email: string;
      name: string;
      role: Role;
      /** The personal token's name when one was used. */
      tokenName: string | null;
      /** The session's CSRF token when the dashboard's session cookie was used. */
      csrfToken: string | null;
    };

/** The credentials a request presented. */
export interface Credentials {
  authorization: string | undefined;
  sessionCookie: string | undefined;
}

/** What the admin guard needs from the process. */
export interface AdminAuthGuard {
  adminToken: string;
  failures: SourceRateLimiter;
  log: { warn(obj: object, msg: string): void };
  /** Counts a refusal with 429 (a metric). */
  onLimited(): void;
  /** Whether ADMIN_TOKEN is on (a setting in the database, the same for every instance). */
  adminTokenEnabled(): Promise<boolean>;
  /** The operator of a live personal token, read from the database. */
  useToken(secret: string): Promise<Actor | null>;
  /** The operator of a live session, read from the database. */
  useSession(cookieValue: string): Promise<Actor | null>;
}

async function identify(guard: AdminAuthGuard, creds: Credentials): Promise<Actor> {
  if (creds.authorization !== undefined) {
    const m = /^Bearer (.+)$/.exec(creds.authorization);
    const secret = m?.[1];
    if (secret === undefined) throw apiError('unauthorized');
    if (secret.startsWith(OPERATOR_TOKEN_PREFIX)) {
      const actor = await guard.useToken(secret);
      if (actor) return actor;
      throw apiError('unauthorized');
    }
    // Compared before the setting is read: a wrong token costs no database round trip.
    if (safeEqual(secret, guard.adminToken) && (await guard.adminTokenEnabled())) {
      return { kind: 'root' };
    }
    throw apiError('unauthorized');
  }
  if (creds.sessionCookie !== undefined) {
    const actor = await guard.useSession(creds.sessionCookie);
    if (actor) return actor;
  }
  throw apiError('unauthorized');
}

/**
 * The admin API's credentials, throttled per source address (docs/operations.md#hostile-clients).
 * A request that presents a credential that is not good (a wrong or turned-off ADMIN_TOKEN, a
 * revoked or expired personal token, an ended session) costs its source one failure; with
 * none left, every admin request from it is refused before any credential is looked at, the
 * right one included, so guessing cannot go on. The limit refills by itself: an operator who
 * shares the address waits out Retry-After, never more. A request without any credential
 * guesses nothing and costs nothing.
 */
export async function authenticateAdminFrom(
  guard: AdminAuthGuard,
  creds: Credentials,
  source: string,
): Promise<Actor> {
  const state = guard.failures.check(source);
  if (state !== 'open') {
    guard.onLimited();
    // No credential is ever logged: a near miss would give most of it away.
    if (state === 'newly_limited') {
      guard.log.warn({ source }, 'failed admin authentications over the limit');
    }
    throw limited(guard, source);
  }
  try {
    return await identify(guard, creds);
  } catch (err) {
    const presented = creds.authorization !== undefined || creds.sessionCookie !== undefined;
    if (presented && isUnauthorized(err)) guard.failures.spend(source);
    throw err;
  }
}

/** 429 with Retry-After for a source over its failures (the sign-in callback shares it). */
export function limited(guard: Pick<AdminAuthGuard, 'failures'>, source: string) {
  return apiError('too_many_failed_authentications').withHeaders({
    'Retry-After': String(guard.failures.retryAfterSeconds(source)),
  });
}

function isUnauthorized(err: unknown): boolean {
  return (err as { kind?: unknown }).kind === 'unauthorized';
}
