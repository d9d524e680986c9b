/**
 * SQL of webhook endpoints (docs/api.md#webhook-endpoints, migration 0015). Deliveries to an
 * endpoint are created by the fan-out trigger on outbound_events; the rest is here.
 */
import { DELIVERY_CHANNEL } from './deliveries.js';
import type { Queryable } from './pool.js';

export interface EndpointRow {
  id: string;
  app_id: string;
  url: string;
  event_types: string[];
  description: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  rotates_at: Date | null;
  disabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, app_id, url, event_types, description, secret_enc, previous_secret_enc,
  rotates_at, disabled, disabled_reason, failing_since, created_at, updated_at`;

export async function insertEndpoint(
  tx: Queryable,
  e: Pick<EndpointRow, 'id' | 'app_id' | 'url' | 'event_types' | 'description' | 'secret_enc'>,
): Promise<EndpointRow> {
  const res = await tx.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, app_id, url, event_types, description, secret_enc)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [e.id, e.app_id, e.url, e.event_types, e.description, e.secret_enc],
  );
  return res.rows[0] as EndpointRow;
}

export async function listEndpoints(db: Queryable, appId: string): Promise<EndpointRow[]> {
  const res = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE app_id = $1 ORDER BY created_at, id`,
    [appId],
  );
  return res.rows;
}

export async function findEndpoint(
  db: Queryable,
  appId: string,
  id: string,
): Promise<EndpointRow | null> {
  const res = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE app_id = $1 AND id = $2`,
    [appId, id],
  );
  return res.rows[0] ?? null;
}

export interface EndpointPatch {
  url?: string;
  event_types?: string[];
  description?: string;
  disabled?: boolean;
}

/** Enabling clears the failure record, so auto-disable counts anew from the next failure. */
export async function updateEndpoint(
  tx: Queryable,
  appId: string,
  id: string,
  p: EndpointPatch,
): Promise<EndpointRow | null> {
  const res = await tx.query<EndpointRow>(
    `UPDATE webhook_endpoints SET
       url = COALESCE($3, url),
       event_types = COALESCE($4, event_types),
       description = COALESCE($5, description),
       disabled = COALESCE($6, disabled),
       disabled_reason = CASE WHEN $6::boolean IS NULL THEN disabled_reason
         WHEN $6 THEN 'disabled by an operator' END,
       failing_since = CASE WHEN $6::boolean IS FALSE THEN NULL ELSE failing_since END,
       updated_at = now()
     WHERE app_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [appId, id, p.url ?? null, p.event_types ?? null, p.description ?? null, p.disabled ?? null],
  );
  return res.rows[0] ?? null;
}

/**
 * The new secret becomes current at once; the previous one keeps signing X-PAY-Signature
 * until rotatesAt. A rotation inside a window drops the secret before the current one.
 */
export async function rotateEndpointSecret(
  tx: Queryable,
  appId: string,
  id: string,
  secretEnc: string,
  graceHours: number,
): Promise<EndpointRow | null> {
  const res = await tx.query<EndpointRow>(
    `UPDATE webhook_endpoints SET
       previous_secret_enc = CASE WHEN $4::int > 0 THEN secret_enc END,
       secret_enc = $3,
       rotates_at = now() + $4::int * interval '1 hour',
       updated_at = now()
     WHERE app_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [appId, id, secretEnc, graceHours],
  );
  return res.rows[0] ?? null;
}

/**
 * Fresh deliveries to the endpoint of the app's events since `since` that it subscribes to
 * and did not get: none of its deliveries of the event was delivered and none is pending.
 * Events from before the endpoint existed were never its to get.
 */
export async function enqueueRecovery(tx: Queryable, ep: EndpointRow, since: Date) {
  // Two recovers of one endpoint at once take turns: the second's check then sees the
  // first's pending deliveries, so nothing is enqueued twice.
  await tx.query(`SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE`, [ep.id]);
  const res = await tx.query(
    `INSERT INTO deliveries (id, event_id, app_id, endpoint_id)
     SELECT 'dlv_' || substr(md5(gen_random_uuid()::text), 1, 24), e.id, e.app_id, $2
     FROM outbound_events e
     WHERE e.app_id = $1 AND e.created_at >= GREATEST($3::timestamptz, $4::timestamptz)
       AND (e.event_type = ANY ($5::text[]) OR '*' = ANY ($5::text[]))
       AND NOT EXISTS (
         SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.endpoint_id = $2
           AND d.status IN ('delivered', 'pending'))`,
    [ep.app_id, ep.id, since, ep.created_at, ep.event_types],
  );
  const n = res.rowCount ?? 0;
  if (n > 0) await tx.query(`NOTIFY ${DELIVERY_CHANNEL}`);
  return n;
}

export interface EndpointStatsRow {
  attempts: number;
  delivered: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** Attempts to the endpoint started in the last `days` days, with duration percentiles. */
export async function endpointStats(
  db: Queryable,
  endpointId: string,
  days: number,
): Promise<EndpointStatsRow> {
  const res = await db.query<EndpointStatsRow>(
    `SELECT count(*)::int AS attempts,
       count(*) FILTER (WHERE a.outcome = 'delivered')::int AS delivered,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY a.duration_ms) AS p50,
       percentile_disc(0.9) WITHIN GROUP (ORDER BY a.duration_ms) AS p90,
       percentile_disc(0.99) WITHIN GROUP (ORDER BY a.duration_ms) AS p99
     FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id
     WHERE d.endpoint_id = $1 AND a.started_at >= now() - $2::int * interval '1 day'`,
    [endpointId, days],
  );
  return res.rows[0] as EndpointStatsRow;
}

export interface AttemptRow {
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  outcome: string;
}

/** The endpoint's latest attempts, newest first, with the receiver's answers. */
export async function recentAttempts(
  db: Queryable,
  endpointId: string,
  limit: number,
): Promise<AttemptRow[]> {
  const res = await db.query<AttemptRow>(
    `SELECT d.id AS delivery_id, d.event_id, e.event_type, a.attempt, a.started_at,
       a.duration_ms, a.status_code, a.error, a.response_body, a.outcome
     FROM deliveries d
     JOIN delivery_attempts a ON a.delivery_id = d.id
     JOIN outbound_events e ON e.id = d.event_id
     WHERE d.endpoint_id = $1
     ORDER BY a.started_at DESC, a.id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return res.rows;
}

/**
 * Disables every endpoint that has failed every attempt since `days` ago (docs/api.md#auto-disable);
 * call in a transaction that also writes their audit entries. An endpoint with a delivery
 * delivered since its failing_since is not failing: the delivery recorder skips an endpoint
 * row another transaction holds and leaves its failure record to a later batch
 * (db/deliveries.ts), so a success may not have cleared it. Its failing_since is cleared here.
 */
export async function disableFailingEndpoints(
  tx: Queryable,
  days: number,
): Promise<{ id: string; app_id: string; failing_since: Date }[]> {
  const res = await tx.query<{ id: string; app_id: string; failing_since: Date }>(
    // Locked in id order (the delivery recorder skips what it finds locked): no deadlock.
    `WITH due AS (
       SELECT id, failing_since FROM webhook_endpoints
       WHERE NOT disabled AND failing_since IS NOT NULL
         AND failing_since <= now() - $1::int * interval '1 day'
       ORDER BY id FOR UPDATE),
     healed AS (
       SELECT due.id FROM due WHERE EXISTS (
         SELECT 1 FROM deliveries d WHERE d.endpoint_id = due.id AND d.status = 'delivered'
           AND d.delivered_at > due.failing_since)),
     cleared AS (
       UPDATE webhook_endpoints ep SET failing_since = NULL, updated_at = now()
       FROM healed h WHERE ep.id = h.id)
     UPDATE webhook_endpoints ep SET disabled = true, updated_at = now(),
       disabled_reason = 'every attempt failed for ' || $1::int || ' days'
     FROM due
     WHERE ep.id = due.id AND due.id NOT IN (SELECT id FROM healed)
       AND NOT ep.disabled AND ep.failing_since IS NOT NULL
       AND ep.failing_since <= now() - $1::int * interval '1 day'
     RETURNING ep.id, ep.app_id, ep.failing_since`,
    [days],
  );
  return res.rows;
}
