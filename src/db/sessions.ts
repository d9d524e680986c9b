/** SQL of dashboard sessions and OpenID Connect sign-ins in flight (migration 0016). */
import type { Queryable } from './pool.js';
import type { TokenHolder } from './operators.js';

export async function insertSession(
  db: Queryable,
  s: { idHash: Buffer; operatorId: string; csrfToken: string; now: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO operator_sessions (id_hash, operator_id, csrf_token, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $4, $5)`,
    [s.idHash, s.operatorId, s.csrfToken, s.now, s.expiresAt],
  );
}

export type SessionHolder = Omit<TokenHolder, 'token_name'> & { csrf_token: string };

/**
 * The session's operator when the session is live (not ended, used within the idle time,
 * before its absolute expiry) and the operator enabled; moves its idle clock. One statement,
 * read on every request: sign-out or a disabled account holds on every instance at once.
 */
export async function touchSession(
  db: Queryable,
  idHash: Buffer,
  now: Date,
  idleMs: number,
): Promise<SessionHolder | null> {
  const res = await db.query<SessionHolder>({
    name: 'operator_session_touch',
    text: `UPDATE operator_sessions s SET last_seen_at = $2
       FROM operators o
       WHERE s.id_hash = $1 AND s.ended_at IS NULL AND s.expires_at > $2
         AND s.last_seen_at > $2::timestamptz - make_interval(secs => $3::double precision / 1000)
         AND o.id = s.operator_id AND NOT o.disabled
       RETURNING s.csrf_token, o.id AS operator_id, o.email, o.name, o.role`,
    values: [idHash, now, idleMs],
  });
  return res.rows[0] ?? null;
}

/** Ends the session; true when it was live. */
export async function endSession(db: Queryable, idHash: Buffer, now: Date): Promise<boolean> {
  const res = await db.query(
    `UPDATE operator_sessions SET ended_at = $2 WHERE id_hash = $1 AND ended_at IS NULL`,
    [idHash, now],
  );
  return (res.rowCount ?? 0) > 0;
}

/** Stores a sign-in in flight; sign-ins abandoned for longer than maxAgeMs go on the way. */
export async function insertSignIn(
  db: Queryable,
  s: { state: string; codeVerifier: string; nonce: string; now: Date; maxAgeMs: number },
): Promise<void> {
  await db.query(
    `WITH stale AS (
       DELETE FROM oidc_sign_ins
       WHERE created_at < $4::timestamptz - make_interval(secs => $5::double precision / 1000)
     )
     INSERT INTO oidc_sign_ins (state, code_verifier, nonce, created_at) VALUES ($1, $2, $3, $4)`,
    [s.state, s.codeVerifier, s.nonce, s.now, s.maxAgeMs],
  );
}

/**
 * Takes a sign-in in flight once (a replayed callback finds nothing), if younger than maxAgeMs;
 * sign-ins abandoned long ago are dropped on the way.
 */
export async function takeSignIn(
  db: Queryable,
  state: string,
  now: Date,
  maxAgeMs: number,
): Promise<{ code_verifier: string; nonce: string } | null> {
  const res = await db.query<{ code_verifier: string; nonce: string; fresh: boolean }>(
    `WITH stale AS (
       DELETE FROM oidc_sign_ins
       WHERE created_at < $2::timestamptz - make_interval(secs => $3::double precision / 1000) AND state <> $1
     )
     DELETE FROM oidc_sign_ins WHERE state = $1
     RETURNING code_verifier, nonce,
       created_at > $2::timestamptz - make_interval(secs => $3::double precision / 1000) AS fresh`,
    [state, now, maxAgeMs],
  );
  const row = res.rows[0];
  return row?.fresh ? { code_verifier: row.code_verifier, nonce: row.nonce } : null;
}
