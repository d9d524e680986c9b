/**
 * How a webhook endpoint is doing (docs/api.md#recover-and-stats, #auto-disable): its stats
 * and latest attempts, and the job that disables an endpoint failing for days.
 */
import { insertAuditEntry } from '../db/audit.js';
import { SYSTEM_ACTOR } from './audit.js';
import * as db from '../db/endpoints.js';
import { withTransaction, type Pool } from '../db/pool.js';
import { STATS_DAYS } from '../domain/endpointSchemas.js';
import { apiError } from '../domain/errors.js';
import { integerParam, integerParamMessage } from '../domain/schemas.js';
import { endpointsAutoDisabled } from '../metrics.js';
import { endpointOf, type EndpointDeps } from './endpoints.js';

export interface EndpointStats {
  endpoint_id: string;
  days: number;
  attempts: number;
  delivered: number;
  failed: number;
  /** delivered / attempts, null without attempts. */
  success_rate: number | null;
  latency_ms: { p50: number | null; p90: number | null; p99: number | null };
  recent_attempts: {
    delivery_id: string;
    event_id: string;
    event_type: string;
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    response_body: string | null;
    outcome: string;
  }[];
}

const RECENT_ATTEMPTS = 20;

export async function getEndpointStats(
  deps: EndpointDeps,
  appId: string,
  id: string,
  rawDays: string | undefined,
): Promise<EndpointStats> {
  const days = integerParam(STATS_DAYS, rawDays);
  if (days === null) throw apiError('invalid', integerParamMessage('days', STATS_DAYS));
  await endpointOf(deps, appId, id);
  const [s, recent] = await Promise.all([
    db.endpointStats(deps.db, id, days),
    db.recentAttempts(deps.db, id, RECENT_ATTEMPTS),
  ]);
  return {
    endpoint_id: id,
    days,
    attempts: s.attempts,
    delivered: s.delivered,
    failed: s.attempts - s.delivered,
    success_rate: s.attempts === 0 ? null : Math.round((s.delivered / s.attempts) * 10000) / 10000,
    latency_ms: { p50: s.p50, p90: s.p90, p99: s.p99 },
    recent_attempts: recent.map((a) => ({
      delivery_id: a.delivery_id,
      event_id: a.event_id,
      event_type: a.event_type,
      attempt: a.attempt,
      started_at: a.started_at.toISOString(),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
      response_body: a.response_body,
      outcome: a.outcome,
    })),
  };
}

/**
 * The auto-disable job (docs/api.md#auto-disable): every endpoint whose every attempt failed
 * for `days` days is disabled, each with an audit entry in the same transaction, an error
 * log line and a metric. Safe on any number of instances (one UPDATE decides).
 */
export async function disableFailingEndpoints(
  pool: Pool,
  days: number,
  log: { error(obj: object, msg: string): void },
): Promise<number> {
  const disabled = await withTransaction(pool, async (tx) => {
    const rows = await db.disableFailingEndpoints(tx, days);
    for (const r of rows) {
      await insertAuditEntry(tx, {
        action: 'endpoint.auto_disable',
        targetType: 'endpoint',
        targetId: r.id,
        outcome: 'disabled',
        requestId: 'auto-disable',
        sourceIp: '',
        actor: SYSTEM_ACTOR.id,
        actorEmail: null,
        actorTokenName: null,
        details: { app_id: r.app_id, failing_since: r.failing_since.toISOString(), days },
      });
    }
    return rows;
  });
  for (const r of disabled) {
    endpointsAutoDisabled.inc();
    log.error(
      { endpoint_id: r.id, app_id: r.app_id, failing_since: r.failing_since.toISOString(), days },
      'webhook endpoint disabled: every attempt failed',
    );
  }
  return disabled.length;
}
