/**
 * Webhook endpoints of an app (docs/api.md#webhook-endpoints): several URLs with event
 * filters, each with its own secret and queue. The app's webhook_url stays its default
 * endpoint; deliveries to these are written by the fan-out trigger (migration 0015).
 */
import { randomBytes } from 'node:crypto';
import { encryptSecret, newSecret } from '../auth/crypto.js';
import { findAppById } from '../db/apps.js';
import { insertAuditEntry } from '../db/audit.js';
import * as db from '../db/endpoints.js';
import type { EndpointRow } from '../db/endpoints.js';
import { withTransaction, type Pool } from '../db/pool.js';
import { parseTimestamp } from '../domain/adminQuery.js';
import {
  CREATE_ENDPOINT,
  ENDPOINT_DESCRIPTION_MAX,
  ENDPOINT_MESSAGES as MSG,
  ENDPOINT_URL_MAX,
  GRACE_HOURS_MAX,
  RECOVER,
  ROTATE,
  STATS_DAYS,
} from '../domain/endpointSchemas.js';
import { apiError } from '../domain/errors.js';
import { EVENT_TYPES } from '../domain/events.js';
import { textProblem } from '../domain/jsonInput.js';
import { isHttpUrl } from '../domain/paymentRequest.js';
import {
  integerParam,
  integerParamMessage,
  missingRequired,
  notStringMessage,
  tooLongMessage,
} from '../domain/schemas.js';
import { endpointsAutoDisabled } from '../metrics.js';
import { checkWebhookTarget, type AppServiceDeps } from './apps.js';
import { redactUrl, type Audit } from './audit.js';

export type EndpointDeps = Pick<
  AppServiceDeps,
  'db' | 'masterKey' | 'allowPrivateWebhookTargets' | 'resolveHost'
>;

export interface EndpointView {
  endpoint_id: string;
  app_id: string;
  url: string;
  event_types: string[];
  description: string;
  disabled: boolean;
  disabled_reason: string | null;
  /** The end of the current secret rotation window, or of the last one; null before any. */
  rotates_at: string | null;
  /** The first failed attempt since the last delivered one (auto-disable counts from it). */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

const bad = (reason: string) => apiError('invalid', reason);
const notFound = () => apiError('endpoint_not_found');

export function toEndpointView(r: EndpointRow): EndpointView {
  return {
    endpoint_id: r.id,
    app_id: r.app_id,
    url: r.url,
    event_types: r.event_types,
    description: r.description,
    disabled: r.disabled,
    disabled_reason: r.disabled_reason,
    rotates_at: r.rotates_at?.toISOString() ?? null,
    failing_since: r.failing_since?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad(MSG.body);
  return body as Record<string, unknown>;
}

function parseUrl(v: unknown): string {
  if (typeof v !== 'string' || v.length > ENDPOINT_URL_MAX || !isHttpUrl(v)) throw bad(MSG.url);
  return v;
}

function parseEventTypes(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every((t) => typeof t === 'string')) {
    throw bad(MSG.event_types);
  }
  const kinds = [...new Set(v as string[])];
  if (kinds.includes('*')) {
    if (kinds.length > 1) throw bad(MSG.star);
    return kinds;
  }
  if (!kinds.every((k) => (EVENT_TYPES as readonly string[]).includes(k))) {
    throw bad(MSG.event_type);
  }
  return kinds;
}

function parseDescription(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw bad(notStringMessage('description'));
  if (v.length > ENDPOINT_DESCRIPTION_MAX) {
    throw bad(tooLongMessage('description', ENDPOINT_DESCRIPTION_MAX));
  }
  return v;
}

/** grace_hours of rotate-secret and regenerate-keys; an absent body or field means 0. */
export function parseGraceHours(body: unknown): number {
  if (body === undefined || body === null) return 0;
  const b = objectBody(body);
  const g = b.grace_hours ?? 0;
  if (typeof g !== 'number' || !Number.isInteger(g) || g < 0 || g > GRACE_HOURS_MAX) {
    throw bad(ROTATE.messages.grace_hours);
  }
  return g;
}

async function appOf(deps: EndpointDeps, appId: string) {
  const app = textProblem(appId) ? null : await findAppById(deps.db, appId);
  if (!app) throw apiError('app_not_found');
  return app;
}

async function endpointOf(deps: EndpointDeps, appId: string, id: string): Promise<EndpointRow> {
  await appOf(deps, appId);
  const ep = textProblem(id) ? null : await db.findEndpoint(deps.db, appId, id);
  if (!ep) throw notFound();
  return ep;
}

const newEndpointId = () => 'ep_' + randomBytes(12).toString('hex');

export interface CreatedEndpoint {
  endpoint_id: string;
  app_id: string;
  url: string;
  event_types: string[];
  description: string;
  secret: string;
  disabled: boolean;
  created_at: string;
}

export async function createEndpoint(
  deps: EndpointDeps,
  appId: string,
  rawBody: unknown,
  audit: Audit,
): Promise<CreatedEndpoint> {
  const body = objectBody(rawBody);
  const missing = missingRequired(CREATE_ENDPOINT, body);
  if (missing.length > 0) throw apiError('missing_fields', missing.join(', '));
  const url = parseUrl(body.url);
  const eventTypes = parseEventTypes(body.event_types);
  const description = parseDescription(body.description);
  const app = await appOf(deps, appId);
  await checkWebhookTarget(deps, app.mode, url, MSG.url_public);
  const secret = newSecret('whsec_', 32);
  const row = await withTransaction(deps.db, async (tx) => {
    const inserted = await db.insertEndpoint(tx, {
      id: newEndpointId(),
      app_id: appId,
      url,
      event_types: eventTypes,
      description,
      secret_enc: encryptSecret(deps.masterKey, secret),
    });
    await audit(tx, {
      targetType: 'endpoint',
      targetId: inserted.id,
      outcome: 'created',
      details: { app_id: appId, url: redactUrl(url), event_types: eventTypes },
    });
    return inserted;
  });
  return {
    endpoint_id: row.id,
    app_id: row.app_id,
    url: row.url,
    event_types: row.event_types,
    description: row.description,
    secret,
    disabled: row.disabled,
    created_at: row.created_at.toISOString(),
  };
}

export async function listAppEndpoints(
  deps: EndpointDeps,
  appId: string,
): Promise<{ endpoints: EndpointView[] }> {
  await appOf(deps, appId);
  return { endpoints: (await db.listEndpoints(deps.db, appId)).map(toEndpointView) };
}

export async function patchEndpoint(
  deps: EndpointDeps,
  appId: string,
  id: string,
  rawBody: unknown,
  audit: Audit,
): Promise<EndpointView> {
  const body = objectBody(rawBody);
  const patch: db.EndpointPatch = {};
  if ('url' in body) patch.url = parseUrl(body.url);
  if ('event_types' in body) patch.event_types = parseEventTypes(body.event_types);
  if ('description' in body) patch.description = parseDescription(body.description);
  if ('disabled' in body) {
    if (typeof body.disabled !== 'boolean') throw bad(MSG.disabled);
    patch.disabled = body.disabled;
  }
  const app = await appOf(deps, appId);
  if (patch.url !== undefined) await checkWebhookTarget(deps, app.mode, patch.url, MSG.url_public);
  await endpointOf(deps, appId, id);
  const row = await withTransaction(deps.db, async (tx) => {
    const updated = await db.updateEndpoint(tx, appId, id, patch);
    if (updated) {
      const details: Record<string, unknown> = { app_id: appId, ...patch };
      if (patch.url !== undefined) details.url = redactUrl(patch.url);
      await audit(tx, { targetType: 'endpoint', targetId: id, outcome: 'updated', details });
    }
    return updated;
  });
  if (!row) throw notFound();
  return toEndpointView(row);
}

/** DELETE: disables the endpoint and keeps it with its deliveries and attempts. */
export async function disableEndpoint(
  deps: EndpointDeps,
  appId: string,
  id: string,
  audit: Audit,
): Promise<EndpointView> {
  await endpointOf(deps, appId, id);
  const row = await withTransaction(deps.db, async (tx) => {
    const updated = await db.updateEndpoint(tx, appId, id, { disabled: true });
    if (updated) {
      await audit(tx, {
        targetType: 'endpoint',
        targetId: id,
        outcome: 'disabled',
        details: { app_id: appId },
      });
    }
    return updated;
  });
  if (!row) throw notFound();
  return toEndpointView(row);
}

export async function rotateSecret(
  deps: EndpointDeps,
  appId: string,
  id: string,
  rawBody: unknown,
  audit: Audit,
): Promise<{ endpoint_id: string; secret: string; rotates_at: string }> {
  const graceHours = parseGraceHours(rawBody);
  await endpointOf(deps, appId, id);
  const secret = newSecret('whsec_', 32);
  const row = await withTransaction(deps.db, async (tx) => {
    const rotated = await db.rotateEndpointSecret(
      tx,
      appId,
      id,
      encryptSecret(deps.masterKey, secret),
      graceHours,
    );
    if (rotated) {
      await audit(tx, {
        targetType: 'endpoint',
        targetId: id,
        outcome: 'rotated',
        details: { app_id: appId, grace_hours: graceHours },
      });
    }
    return rotated;
  });
  if (!row?.rotates_at) throw notFound();
  return { endpoint_id: row.id, secret, rotates_at: row.rotates_at.toISOString() };
}

export async function recoverEndpoint(
  deps: EndpointDeps,
  appId: string,
  id: string,
  rawBody: unknown,
  audit: Audit,
): Promise<{ deliveries: number }> {
  const body = objectBody(rawBody);
  const missing = missingRequired(RECOVER, body);
  if (missing.length > 0) throw apiError('missing_fields', missing.join(', '));
  const since = parseTimestamp('since', typeof body.since === 'string' ? body.since : ' ');
  const ep = await endpointOf(deps, appId, id);
  if (ep.disabled) throw apiError('endpoint_disabled');
  return withTransaction(deps.db, async (tx) => {
    const n = await db.enqueueRecovery(tx, ep, since as Date);
    await audit(tx, {
      targetType: 'endpoint',
      targetId: id,
      outcome: 'enqueued',
      details: { app_id: appId, since: (since as Date).toISOString(), deliveries: n },
    });
    return { deliveries: n };
  });
}

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
  if (days === null) throw bad(integerParamMessage('days', STATS_DAYS));
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
