import type { Queryable } from './pool.js';

export interface IdempotencyRow {
  request_hash: string;
  state: 'processing' | 'released' | 'completed';
  locked_until: Date | null;
  resource_id: string | null;
  response_status: number | null;
  response_body: string | null;
  expired: boolean;
  lease_expired: boolean;
}

export interface IdempotencyScope {
  appId: string;
  endpoint: string;
  key: string;
}

const WINDOW = `interval '24 hours'`;

/** Claims a fresh key; null when a row for it already exists. */
export async function tryInsertClaim(
  db: Queryable,
  s: IdempotencyScope,
  requestHash: string,
  leaseMs: number,
): Promise<boolean> {
  const res = await db.query({
    name: 'idem_insert',
    text: `INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, locked_until)
       VALUES ($1, $2, $3, $4, 'processing', now() + $5 * interval '1 millisecond')
       ON CONFLICT DO NOTHING`,
    values: [s.appId, s.endpoint, s.key, requestHash, leaseMs],
  });
  return res.rowCount === 1;
}

export async function readClaim(
  db: Queryable,
  s: IdempotencyScope,
): Promise<IdempotencyRow | null> {
  const res = await db.query<IdempotencyRow>({
    name: 'idem_read',
    text: `SELECT request_hash, state, locked_until, resource_id, response_status, response_body,
         created_at < now() - ${WINDOW} AS expired,
         locked_until IS NULL OR locked_until < now() AS lease_expired
       FROM idempotency_keys WHERE app_id = $1 AND endpoint = $2 AND key = $3`,
    values: [s.appId, s.endpoint, s.key],
  });
  return res.rows[0] ?? null;
}

/** Deletes the row only if it is past the 24 h window (so a racing fresh claim survives). */
export async function deleteIfExpired(db: Queryable, s: IdempotencyScope): Promise<void> {
  await db.query({
    name: 'idem_delete_expired',
    text: `DELETE FROM idempotency_keys WHERE app_id = $1 AND endpoint = $2 AND key = $3
       AND created_at < now() - ${WINDOW}`,
    values: [s.appId, s.endpoint, s.key],
  });
}

/**
 * Takes over a released key, or a processing one whose owner's lease ran out (it crashed).
 * A different body on a released key starts afresh: the old resource is not resumed.
 * Returns the resource to resume, or undefined when another request won the race.
 */
export async function takeOver(
  db: Queryable,
  s: IdempotencyScope,
  seen: IdempotencyRow,
  requestHash: string,
  leaseMs: number,
): Promise<{ resourceId: string | null } | undefined> {
  const res = await db.query<{ resource_id: string | null }>({
    name: 'idem_take_over',
    text: `UPDATE idempotency_keys SET state = 'processing',
         locked_until = now() + $5 * interval '1 millisecond',
         resource_id = CASE WHEN request_hash = $6 THEN resource_id ELSE NULL END,
         created_at = CASE WHEN request_hash = $6 THEN created_at ELSE now() END,
         request_hash = $6
       WHERE app_id = $1 AND endpoint = $2 AND key = $3 AND state = $4
         AND request_hash = $7
         AND (state = 'released' OR locked_until < now())
       RETURNING resource_id`,
    values: [s.appId, s.endpoint, s.key, seen.state, leaseMs, requestHash, seen.request_hash],
  });
  const row = res.rows[0];
  return row ? { resourceId: row.resource_id } : undefined;
}

export async function setResource(
  db: Queryable,
  s: IdempotencyScope,
  resourceId: string,
): Promise<void> {
  await db.query({
    name: 'idem_set_resource',
    text: `UPDATE idempotency_keys SET resource_id = $4 WHERE app_id = $1 AND endpoint = $2 AND key = $3`,
    values: [s.appId, s.endpoint, s.key, resourceId],
  });
}

export async function complete(
  db: Queryable,
  s: IdempotencyScope,
  status: number,
  body: string,
): Promise<void> {
  await db.query({
    name: 'idem_complete',
    text: `UPDATE idempotency_keys SET state = 'completed', locked_until = NULL,
         response_status = $4, response_body = $5
       WHERE app_id = $1 AND endpoint = $2 AND key = $3`,
    values: [s.appId, s.endpoint, s.key, status, body],
  });
}

export async function release(db: Queryable, s: IdempotencyScope): Promise<void> {
  await db.query({
    name: 'idem_release',
    text: `UPDATE idempotency_keys SET state = 'released', locked_until = NULL
       WHERE app_id = $1 AND endpoint = $2 AND key = $3 AND state = 'processing'`,
    values: [s.appId, s.endpoint, s.key],
  });
}

/**
 * Background purge of keys past the 24 h window, in bounded batches; SKIP LOCKED lets
 * several instances purge at once without waiting on each other or on a request that
 * holds the key.
 */
export async function purgeExpired(db: Queryable, batch = 1000): Promise<number> {
  const res = await db.query(
    `DELETE FROM idempotency_keys WHERE (app_id, endpoint, key) IN (
       SELECT app_id, endpoint, key FROM idempotency_keys WHERE created_at < now() - ${WINDOW}
       ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    [batch],
  );
  return res.rowCount ?? 0;
}
