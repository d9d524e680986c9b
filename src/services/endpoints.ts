/**
 * Webhook endpoints of an app (docs/api.md#webhook-endpoints): several URLs with event
 * filters, each with its own secret and queue. The app's webhook_url stays its default
 * endpoint; deliveries to these are written by the fan-out trigger (migration 0015).
 */
import { randomBytes } from 'node:crypto';
import { encryptSecret, newSecret } from '../auth/crypto.js';
import { findAppById } from '../db/apps.js';
import * as db from '../db/endpoints.js';
import type { EndpointRow } from '../db/endpoints.js';
import { withTransaction } from '../db/pool.js';
import { parseTimestamp } from '../domain/adminQuery.js';
import { CREATE_ENDPOINT, ENDPOINT_MESSAGES as MSG, RECOVER } from '../domain/endpointSchemas.js';
import { apiError } from '../domain/errors.js';
import { textProblem } from '../domain/jsonInput.js';
import { missingRequired } from '../domain/schemas.js';
import {
  objectBody,
  parseDescription,
  parseEventTypes,
  parseGraceHours,
  parseUrl,
} from './endpointInput.js';
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

async function appOf(deps: EndpointDeps, appId: string) {
  const app = textProblem(appId) ? null : await findAppById(deps.db, appId);
  if (!app) throw apiError('app_not_found');
  return app;
}

export async function endpointOf(
  deps: EndpointDeps,
  appId: string,
  id: string,
): Promise<EndpointRow> {
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

export { parseGraceHours };
