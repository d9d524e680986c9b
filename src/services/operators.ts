/**
 * Operator accounts, their personal API tokens and the ADMIN_TOKEN switch (docs/api.md#operators).
 * Every change writes its audit entry in its own transaction.
 */
import { createHash, randomBytes } from 'node:crypto';
import { OPERATOR_TOKEN_PREFIX, type Actor } from '../auth/adminAuth.js';
import { isRole } from '../auth/roles.js';
import {
  parseCreateOperator,
  parseCreateToken,
  parsePatchAdminToken,
  parsePatchOperator,
} from '../auth/operatorSchemas.js';
import * as db from '../db/operators.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import { apiError } from '../domain/errors.js';
import type { Audit } from './audit.js';

export interface OperatorView {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface TokenView {
  id: string;
  operator_id: string;
  name: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

const DAY_MS = 86_400_000;

function operatorView(r: db.OperatorRow): OperatorView {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    disabled: r.disabled,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

function tokenView(r: db.TokenRow): TokenView {
  return {
    id: r.id,
    operator_id: r.operator_id,
    name: r.name,
    created_at: r.created_at.toISOString(),
    expires_at: r.expires_at.toISOString(),
    revoked_at: r.revoked_at?.toISOString() ?? null,
    last_used_at: r.last_used_at?.toISOString() ?? null,
  };
}

/** The stored form of a personal token or session id: its SHA-256. */
export function secretHash(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function operatorActor(
  h: Omit<db.TokenHolder, 'token_name'>,
  tokenName: string | null,
  csrfToken: string | null,
): Actor | null {
  if (!isRole(h.role)) return null;
  return {
    kind: 'operator',
    id: h.operator_id,
    email: h.email,
    name: h.name,
    role: h.role,
    tokenName,
    csrfToken,
  };
}

/** The operator of a live personal token (read on every request: revocation holds at once). */
export async function useOperatorToken(
  q: Queryable,
  secret: string,
  now: Date,
): Promise<Actor | null> {
  const h = await db.useToken(q, secretHash(secret), now);
  return h ? operatorActor(h, h.token_name, null) : null;
}

const OPERATOR_ID = /^op_[0-9a-f]{24}$/;
const TOKEN_ID = /^tok_[0-9a-f]{24}$/;

async function existing(q: Queryable, id: string): Promise<db.OperatorRow> {
  const found = OPERATOR_ID.test(id) ? await db.findOperator(q, id) : null;
  if (!found) throw apiError('operator_not_found');
  return found;
}

export async function createOperator(pool: Pool, body: unknown, audit: Audit) {
  const o = parseCreateOperator(body);
  return withTransaction(pool, async (tx) => {
    const row = await db.insertOperator(tx, { id: `op_${randomBytes(12).toString('hex')}`, ...o });
    if (!row) throw apiError('operator_exists');
    await audit(tx, {
      targetType: 'operator',
      targetId: row.id,
      outcome: 'created',
      details: { email: row.email, role: row.role },
    });
    return operatorView(row);
  });
}

export async function listOperators(q: Queryable): Promise<{ operators: OperatorView[] }> {
  return { operators: (await db.listOperators(q)).map(operatorView) };
}

export async function getOperator(q: Queryable, id: string): Promise<OperatorView> {
  return operatorView(await existing(q, id));
}

/**
 * Role, name, disabled. While ADMIN_TOKEN is off, the last enabled admin can be neither
 * demoted nor disabled: nobody could manage operators any more (docs/operations.md#locked-out).
 */
export async function patchOperator(pool: Pool, id: string, body: unknown, audit: Audit) {
  const p = parsePatchOperator(body);
  return withTransaction(pool, async (tx) => {
    const tokenOn = await db.lockAdminTokenSetting(tx);
    const before = await existing(tx, id);
    const stopsBeingAdmin =
      before.role === 'admin' &&
      !before.disabled &&
      ((p.role !== null && p.role !== 'admin') || p.disabled === true);
    if (!tokenOn && stopsBeingAdmin && (await db.countOtherAdmins(tx, id)) === 0) {
      throw apiError('last_admin');
    }
    const row = (await db.updateOperator(tx, id, p)) as db.OperatorRow;
    const changes: Record<string, unknown> = {};
    if (p.name !== null && p.name !== before.name) changes.name = [before.name, row.name];
    if (p.role !== null && p.role !== before.role) changes.role = [before.role, row.role];
    if (p.disabled !== null && p.disabled !== before.disabled)
      changes.disabled = [before.disabled, row.disabled];
    await audit(tx, {
      targetType: 'operator',
      targetId: id,
      outcome: Object.keys(changes).length > 0 ? 'updated' : 'unchanged',
      details: { email: row.email, changes },
    });
    return operatorView(row);
  });
}

/** The new token's secret is in this answer only; the database keeps its hash. */
export async function createToken(
  pool: Pool,
  operatorId: string,
  body: unknown,
  now: Date,
  audit: Audit,
) {
  const t = parseCreateToken(body);
  const secret = OPERATOR_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return withTransaction(pool, async (tx) => {
    const owner = await existing(tx, operatorId);
    const row = await db.insertToken(tx, {
      id: `tok_${randomBytes(12).toString('hex')}`,
      operatorId: owner.id,
      name: t.name,
      hash: secretHash(secret),
      expiresAt: new Date(now.getTime() + t.expiresInDays * DAY_MS),
      now,
    });
    await audit(tx, {
      targetType: 'operator',
      targetId: owner.id,
      outcome: 'token_created',
      details: { token_id: row.id, token_name: row.name, expires_at: row.expires_at },
    });
    return { ...tokenView(row), token: secret };
  });
}

export async function listTokens(q: Queryable, operatorId: string) {
  const owner = await existing(q, operatorId);
  return { tokens: (await db.listTokens(q, owner.id)).map(tokenView) };
}

/** Revoked at once everywhere: every request reads the token's row (no cache). */
export async function revokeToken(
  pool: Pool,
  operatorId: string,
  tokenId: string,
  now: Date,
  audit: Audit,
) {
  return withTransaction(pool, async (tx) => {
    await existing(tx, operatorId);
    const row = TOKEN_ID.test(tokenId) ? await db.revokeToken(tx, operatorId, tokenId, now) : null;
    if (!row) throw apiError('token_not_found');
    await audit(tx, {
      targetType: 'operator',
      targetId: operatorId,
      outcome: 'token_revoked',
      details: { token_id: row.id, token_name: row.name },
    });
    return tokenView(row);
  });
}

export async function getAdminTokenSetting(q: Queryable): Promise<{ enabled: boolean }> {
  return { enabled: await db.adminTokenEnabled(q) };
}

/** Off only while an enabled admin operator exists, so that someone can still manage operators. */
export async function patchAdminTokenSetting(pool: Pool, body: unknown, audit: Audit) {
  const { enabled } = parsePatchAdminToken(body);
  return withTransaction(pool, async (tx) => {
    const was = await db.lockAdminTokenSetting(tx);
    if (!enabled && (await db.countOtherAdmins(tx, null)) === 0) {
      throw apiError('admin_token_needs_admin');
    }
    await db.setAdminTokenEnabled(tx, enabled);
    await audit(tx, {
      targetType: 'setting',
      targetId: 'admin_token',
      outcome: enabled === was ? 'unchanged' : enabled ? 'enabled' : 'disabled',
    });
    return { enabled };
  });
}
