/** SQL of operator accounts, their personal tokens and the admin token setting (migration 0016). */
import type { Queryable } from './pool.js';

export interface OperatorRow {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const OPERATOR_COLUMNS = 'id, email, name, role, disabled, created_at, updated_at';

/** null when the email (any case) already has an account. */
export async function insertOperator(
  db: Queryable,
  o: { id: string; email: string; name: string; role: string },
): Promise<OperatorRow | null> {
  const res = await db.query<OperatorRow>(
    `INSERT INTO operators (id, email, name, role) VALUES ($1, $2, $3, $4)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING ${OPERATOR_COLUMNS}`,
    [o.id, o.email, o.name, o.role],
  );
  return res.rows[0] ?? null;
}

export async function listOperators(db: Queryable): Promise<OperatorRow[]> {
  const res = await db.query<OperatorRow>(
    `SELECT ${OPERATOR_COLUMNS} FROM operators ORDER BY created_at, id`,
  );
  return res.rows;
}

export async function findOperator(db: Queryable, id: string): Promise<OperatorRow | null> {
  const res = await db.query<OperatorRow>(
    `SELECT ${OPERATOR_COLUMNS} FROM operators WHERE id = $1`,
    [id],
  );
  return res.rows[0] ?? null;
}

export async function findOperatorByEmail(
  db: Queryable,
  email: string,
): Promise<OperatorRow | null> {
  const res = await db.query<OperatorRow>(
    `SELECT ${OPERATOR_COLUMNS} FROM operators WHERE lower(email) = lower($1)`,
    [email],
  );
  return res.rows[0] ?? null;
}

/**
 * Binds the operator to the identity provider's account on its first sign-in, or confirms the
 * account it is bound to. One statement, so two first sign-ins racing bind one account only.
 * A binding made under another issuer (the gateway moved to a new identity provider) is
 * replaced: the issuer is the gateway's own setting, not something a sign-in can choose.
 * 'bound_elsewhere': the operator is bound to another account of this issuer, or is disabled
 * or gone. 'account_taken': the account is another operator's.
 */
export async function bindOperatorIdentity(
  db: Queryable,
  id: string,
  account: { issuer: string; subject: string },
): Promise<'bound' | 'bound_elsewhere' | 'account_taken'> {
  try {
    const res = await db.query(
      `UPDATE operators SET oidc_issuer = $2, oidc_subject = $3
       WHERE id = $1 AND NOT disabled
         AND (oidc_subject IS NULL OR oidc_issuer IS DISTINCT FROM $2 OR oidc_subject = $3)`,
      [id, account.issuer, account.subject],
    );
    return res.rowCount === 1 ? 'bound' : 'bound_elsewhere';
  } catch (err) {
    if ((err as { constraint?: unknown }).constraint === 'operators_oidc_account_idx') {
      return 'account_taken';
    }
    throw err;
  }
}

export async function updateOperator(
  db: Queryable,
  id: string,
  p: { name: string | null; role: string | null; disabled: boolean | null },
): Promise<OperatorRow | null> {
  const res = await db.query<OperatorRow>(
    `UPDATE operators SET name = coalesce($2, name), role = coalesce($3, role),
       disabled = coalesce($4, disabled), updated_at = now(),
       -- Disabling releases the identity provider's account: enabled again, the operator
       -- binds to whichever account signs in first with the verified email.
       oidc_issuer = CASE WHEN $4 THEN NULL ELSE oidc_issuer END,
       oidc_subject = CASE WHEN $4 THEN NULL ELSE oidc_subject END
     WHERE id = $1 RETURNING ${OPERATOR_COLUMNS}`,
    [id, p.name, p.role, p.disabled],
  );
  return res.rows[0] ?? null;
}

/** Enabled admins other than `except`, locked so that two changes cannot both pass the check. */
export async function countOtherAdmins(db: Queryable, except: string | null): Promise<number> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM operators WHERE role = 'admin' AND NOT disabled AND id IS DISTINCT FROM $1
     FOR UPDATE`,
    [except],
  );
  return res.rows.length;
}

/**
 * The admin token setting, locked for the transaction: every change that could leave the
 * gateway without an admin takes this lock first, so such changes run one after another.
 */
export async function lockAdminTokenSetting(db: Queryable): Promise<boolean> {
  const res = await db.query<{ value: boolean }>(
    `SELECT value FROM gateway_settings WHERE key = 'admin_token_enabled' FOR UPDATE`,
  );
  return res.rows[0]?.value !== false;
}

export async function adminTokenEnabled(db: Queryable): Promise<boolean> {
  const res = await db.query<{ value: boolean }>({
    name: 'admin_token_enabled',
    text: `SELECT value FROM gateway_settings WHERE key = 'admin_token_enabled'`,
  });
  return res.rows[0]?.value !== false;
}

export async function setAdminTokenEnabled(db: Queryable, enabled: boolean): Promise<void> {
  await db.query(
    `INSERT INTO gateway_settings (key, value) VALUES ('admin_token_enabled', $1)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [JSON.stringify(enabled)],
  );
}

// ----------------------------------------------------------------------------- tokens

export interface TokenRow {
  id: string;
  operator_id: string;
  name: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const TOKEN_COLUMNS = 'id, operator_id, name, created_at, expires_at, revoked_at, last_used_at';

export async function insertToken(
  db: Queryable,
  t: { id: string; operatorId: string; name: string; hash: Buffer; expiresAt: Date; now: Date },
): Promise<TokenRow> {
  const res = await db.query<TokenRow>(
    `INSERT INTO operator_tokens (id, operator_id, name, token_hash, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${TOKEN_COLUMNS}`,
    [t.id, t.operatorId, t.name, t.hash, t.now, t.expiresAt],
  );
  return res.rows[0] as TokenRow;
}

export async function listTokens(db: Queryable, operatorId: string): Promise<TokenRow[]> {
  const res = await db.query<TokenRow>(
    `SELECT ${TOKEN_COLUMNS} FROM operator_tokens WHERE operator_id = $1
     ORDER BY created_at DESC, id`,
    [operatorId],
  );
  return res.rows;
}

/** Revokes once: a second revocation keeps the first time. null when there is no such token. */
export async function revokeToken(
  db: Queryable,
  operatorId: string,
  tokenId: string,
  now: Date,
): Promise<TokenRow | null> {
  const res = await db.query<TokenRow>(
    `UPDATE operator_tokens SET revoked_at = coalesce(revoked_at, $3)
     WHERE id = $2 AND operator_id = $1 RETURNING ${TOKEN_COLUMNS}`,
    [operatorId, tokenId, now],
  );
  return res.rows[0] ?? null;
}

export interface TokenHolder {
  token_name: string;
  operator_id: string;
  email: string;
  name: string;
  role: string;
}

/**
 * The operator a token belongs to, when the token is live and its operator enabled; marks it
 * used. Read from the database on every request: a revocation holds on every instance at once.
 */
export async function useToken(
  db: Queryable,
  hash: Buffer,
  now: Date,
): Promise<TokenHolder | null> {
  const res = await db.query<TokenHolder>({
    name: 'operator_token_use',
    text: `UPDATE operator_tokens t SET last_used_at = $2
       FROM operators o
       WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > $2
         AND o.id = t.operator_id AND NOT o.disabled
       RETURNING t.name AS token_name, o.id AS operator_id, o.email, o.name, o.role`,
    values: [hash, now],
  });
  return res.rows[0] ?? null;
}
