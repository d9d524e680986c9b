/** SQL of the audit log (migration 0008): insert inside the change's transaction, and list. */
import type { Queryable } from './pool.js';

export interface NewAuditEntry {
  action: string;
  targetType: string;
  targetId: string;
  outcome: string;
  requestId: string;
  sourceIp: string;
  details: Record<string, unknown>;
  /** 'root' (ADMIN_TOKEN) or the operator's id. */
  actor: string;
  actorEmail: string | null;
  actorTokenName: string | null;
}

export async function insertAuditEntry(tx: Queryable, e: NewAuditEntry): Promise<void> {
  await tx.query({
    name: 'audit_insert',
    text: `INSERT INTO audit_log (action, target_type, target_id, outcome, request_id, source_ip,
         details, actor, actor_email, actor_token_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    values: [
      e.action,
      e.targetType,
      e.targetId,
      e.outcome,
      e.requestId,
      e.sourceIp,
      JSON.stringify(e.details),
      e.actor,
      e.actorEmail,
      e.actorTokenName,
    ],
  });
}

export interface AuditRow {
  id: number;
  at: Date;
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

export async function listAuditRows(
  db: Queryable,
  f: {
    action: string | null;
    targetId: string | null;
    actor: string | null;
    before: number | null;
    limit: number;
  },
): Promise<AuditRow[]> {
  const conds: string[] = [];
  const values: unknown[] = [];
  if (f.action !== null) {
    values.push(f.action);
    conds.push(`action = $${values.length}`);
  }
  if (f.targetId !== null) {
    values.push(f.targetId);
    conds.push(`target_id = $${values.length}`);
  }
  if (f.actor !== null) {
    values.push(f.actor);
    conds.push(`actor = $${values.length}`);
  }
  if (f.before !== null) {
    values.push(f.before);
    conds.push(`id < $${values.length}`);
  }
  values.push(f.limit);
  const res = await db.query<AuditRow>(
    `SELECT id, at, action, target_type, target_id, outcome, request_id, source_ip, details,
       actor, actor_email, actor_token_name
     FROM audit_log ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''}
     ORDER BY id DESC LIMIT $${values.length}`,
    values,
  );
  return res.rows;
}
