/**
 * Dashboard sessions (docs/operations.md#single-sign-on): created by a finished OpenID Connect
 * sign-in for an enabled operator with that verified email, stored server-side by the hash
 * of the cookie's value, ended by sign-out, idle time or absolute age.
 */
import { randomBytes } from 'node:crypto';
import type { Actor } from '../auth/adminAuth.js';
import type { OidcSignIn } from '../auth/oidc.js';
import { bindOperatorIdentity, findOperatorByEmail } from '../db/operators.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import * as db from '../db/sessions.js';
import { apiError } from '../domain/errors.js';
import { auditFor, type AuditSource } from './audit.js';
import { operatorActor, secretHash } from './operators.js';

/** A sign-in must come back from the identity provider within this time. */
export const SIGN_IN_MAX_AGE_MS = 10 * 60_000;

export interface SessionLimits {
  idleMs: number;
  maxMs: number;
}

/** The identity provider did not answer discovery (its metadata, keys): 503, try later. */
export class IdentityProviderUnavailable extends Error {}

/** The first leg: where to send the browser, and the state its binding cookie carries. */
export async function startSignIn(
  q: Queryable,
  oidc: OidcSignIn,
  now: Date,
): Promise<{ url: string; state: string }> {
  const s = await oidc.start().catch((err: unknown) => {
    throw new IdentityProviderUnavailable('identity provider unreachable', { cause: err });
  });
  await db.insertSignIn(q, {
    state: s.state,
    codeVerifier: s.codeVerifier,
    nonce: s.nonce,
    now,
    maxAgeMs: SIGN_IN_MAX_AGE_MS,
  });
  return { url: s.url, state: s.state };
}

const failed = (why: string) => apiError('sign_in_failed', why);

/**
 * The second leg. `boundState` is the state of the browser's binding cookie: a callback
 * whose state was started in another browser (login CSRF) or already used is refused.
 */
export async function finishSignIn(
  pool: Pool,
  oidc: OidcSignIn,
  query: URLSearchParams,
  boundState: string | undefined,
  now: Date,
  limits: SessionLimits,
  source: Omit<AuditSource, 'actor'>,
): Promise<{ cookieValue: string; operatorId: string }> {
  const state = query.get('state');
  if (!state || boundState === undefined || state !== boundState) {
    throw failed('the sign-in was not started in this browser or has expired');
  }
  const started = await db.takeSignIn(pool, state, now, SIGN_IN_MAX_AGE_MS);
  if (!started) throw failed('the sign-in was not started in this browser or has expired');
  let identity;
  try {
    identity = await oidc.finish(query, {
      state,
      codeVerifier: started.code_verifier,
      nonce: started.nonce,
    });
  } catch {
    throw failed('the identity provider did not confirm it');
  }
  if (!identity.email || !identity.emailVerified) {
    throw failed('the identity provider gave no verified email');
  }
  const operator = await findOperatorByEmail(pool, identity.email);
  if (!operator || operator.disabled) throw failed('no enabled operator account for this email');
  const cookieValue = randomBytes(32).toString('base64url');
  await withTransaction(pool, async (tx) => {
    const bound = await bindOperatorIdentity(tx, operator.id, identity);
    if (bound === 'bound_elsewhere') {
      throw failed('this email belongs to an operator bound to another account');
    }
    if (bound === 'account_taken') {
      throw failed('this account is bound to another operator');
    }
    await db.insertSession(tx, {
      idHash: secretHash(cookieValue),
      operatorId: operator.id,
      csrfToken: randomBytes(32).toString('base64url'),
      now,
      expiresAt: new Date(now.getTime() + limits.maxMs),
    });
    const actor = { id: operator.id, email: operator.email, tokenName: null };
    await auditFor({ ...source, actor }, 'operator.sign_in')(tx, {
      targetType: 'operator',
      targetId: operator.id,
      outcome: 'signed_in',
    });
  });
  return { cookieValue, operatorId: operator.id };
}

export async function useSession(
  q: Queryable,
  cookieValue: string,
  now: Date,
  idleMs: number,
): Promise<Actor | null> {
  const h = await db.touchSession(q, secretHash(cookieValue), now, idleMs);
  return h ? operatorActor(h, null, h.csrf_token) : null;
}

/** Ends the session on the server: the cookie is worthless from now on, wherever it was copied. */
export async function signOut(
  pool: Pool,
  cookieValue: string,
  now: Date,
  source: AuditSource,
): Promise<void> {
  await withTransaction(pool, async (tx) => {
    if (await db.endSession(tx, secretHash(cookieValue), now)) {
      await auditFor(source, 'operator.sign_out')(tx, {
        targetType: 'operator',
        targetId: source.actor.id,
        outcome: 'signed_out',
      });
    }
  });
}
