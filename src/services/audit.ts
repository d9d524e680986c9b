/**
 * The operator audit log: every admin request that changes something writes one entry in
 * the transaction of its change, so an entry exists exactly when the change committed. The
 * route binds who asked (request id, source address) and the action; the use case adds what
 * it changed. Details never hold a secret: keys are never recorded, and URLs lose their
 * credentials and query string.
 */
import { insertAuditEntry, listAuditRows } from '../db/audit.js';
import type { Queryable } from '../db/pool.js';
import { parseListLimit } from '../domain/adminQuery.js';
import { apiError } from '../domain/errors.js';
import { PARAMS } from '../domain/schemas.js';
import { isText } from '../domain/paymentSearch.js';

export const AUDIT_ACTIONS = [
  'app.create',
  'app.update',
  'app.regenerate_keys',
  'app.redeliver',
  'endpoint.create',
  'endpoint.update',
  'endpoint.disable',
  'endpoint.rotate_secret',
  'endpoint.recover',
  'endpoint.auto_disable',
  'payment.cancel',
  'payment.refund',
  'payment.retry_webhook',
  'payment.sync',
  'reconciliation.import',
  'reconciliation.run',
  'exception.resolve',
  'operator.create',
  'operator.update',
  'operator.token_create',
  'operator.token_revoke',
  'operator.sign_in',
  'operator.sign_out',
  'admin_token.update',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: ADMIN_TOKEN ('root'), or an operator, and the name of the token they used. */
export interface AuditActor {
  id: string;
  email: string | null;
  tokenName: string | null;
}

export const ROOT_ACTOR: AuditActor = { id: 'root', email: null, tokenName: null };
/** The gateway itself, for a change no request asked for (a job). */
export const SYSTEM_ACTOR: AuditActor = { id: 'system', email: null, tokenName: null };

export interface AuditSource {
  requestId: string;
  sourceIp: string;
  actor: AuditActor;
}

export const AUDIT_TARGET_TYPES = [
  'app',
  'payment',
  'endpoint',
  'reconciliation_import',
  'reconciliation_run',
  'exception',
  'operator',
  'setting',
] as const;

export interface AuditChange {
  targetType: (typeof AUDIT_TARGET_TYPES)[number];
  targetId: string;
  outcome: string;
  details?: Record<string, unknown>;
}

/** Writes the request's entry; call with the transaction client that makes the change. */
export type Audit = (tx: Queryable, change: AuditChange) => Promise<void>;

export function auditFor(source: AuditSource, action: AuditAction): Audit {
  return (tx, change) =>
    insertAuditEntry(tx, {
      action,
      targetType: change.targetType,
      targetId: change.targetId,
      outcome: change.outcome,
      requestId: source.requestId,
      sourceIp: source.sourceIp,
      details: change.details ?? {},
      actor: source.actor.id,
      actorEmail: source.actor.email,
      actorTokenName: source.actor.tokenName,
    });
}

/** A URL as safe to keep: no user, password or query string (any may carry a token). */
export function redactUrl(url: string | null): string | null {
  if (url === null) return null;
  try {
    const u = new URL(url);
    const hadQuery = u.search !== '';
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString() + (hadQuery ? '?[redacted]' : '');
  } catch {
    return '[unparseable]';
  }
}

export interface AuditEntryView {
  id: number;
  at: string;
  action: string;
  target_type: string;
  target_id: string;
  outcome: string;
  request_id: string;
  source_ip: string;
  details: Record<string, unknown>;
  actor: string;
  actor_email: string | null;
  actor_token_name: string | null;
}

/**
 * An actor as the filter takes it: root (ADMIN_TOKEN), system (what the gateway does by
 * itself, such as disabling an endpoint that kept failing), or an operator id.
 */
export const ACTOR_PATTERN = /^(root|system|op_[0-9a-f]{24})$/;

/** GET /admin/audit: newest first, limit/before paging, action, target_id and actor filters. */
export async function listAudit(
  db: Queryable,
  q: { limit?: string; before?: string; action?: string; target_id?: string; actor?: string },
): Promise<{ entries: AuditEntryView[] }> {
  const limit = parseListLimit(q.limit);
  let before: number | null = null;
  if (q.before !== undefined && q.before !== '') {
    if (!/^\d{1,15}$/.test(q.before) || Number(q.before) < 1) {
      throw apiError('invalid', 'before must be an audit entry id from a previous page');
    }
    before = Number(q.before);
  }
  const action = q.action === undefined || q.action === '' ? null : q.action;
  if (action !== null && !(AUDIT_ACTIONS as readonly string[]).includes(action)) {
    throw apiError('invalid', `action must be one of ${AUDIT_ACTIONS.join(', ')}`);
  }
  const targetId = q.target_id === undefined || q.target_id === '' ? null : q.target_id;
  if (
    targetId !== null &&
    (targetId.length > PARAMS.auditTargetId.maxLength || !isText(targetId))
  ) {
    throw apiError('invalid', 'target_id must be at most 200 characters of text');
  }
  const actor = q.actor === undefined || q.actor === '' ? null : q.actor;
  if (actor !== null && !ACTOR_PATTERN.test(actor)) {
    throw apiError('invalid', 'actor must be root, system or an operator id');
  }
  const rows = await listAuditRows(db, { action, targetId, actor, before, limit });
  return {
    entries: rows.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      action: r.action,
      target_type: r.target_type,
      target_id: r.target_id,
      outcome: r.outcome,
      request_id: r.request_id,
      source_ip: r.source_ip,
      details: r.details,
      actor: r.actor,
      actor_email: r.actor_email,
      actor_token_name: r.actor_token_name,
    })),
  };
}
