import type { Queryable } from './pool.js';

/**
 * Retention of the append-only history (docs/operations.md#retention). Each purge deletes
 * at most `batch` rows per statement, oldest first; FOR UPDATE SKIP LOCKED lets every
 * instance run it at once without waiting on the others, and keeps each statement short so
 * it never holds back the live traffic on the same tables.
 */

/** Archived inbound webhooks of any outcome older than the retention. */
export async function purgeOldInbound(
  db: Queryable,
  retentionDays: number,
  batch = 1000,
): Promise<number> {
  const res = await db.query(
    `DELETE FROM inbound_events WHERE (id, received_at) IN (
       SELECT id, received_at FROM inbound_events
       WHERE received_at < now() - $1 * interval '1 day'
       ORDER BY received_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [retentionDays, batch],
  );
  return res.rowCount ?? 0;
}

/**
 * Attempts older than the retention, of deliveries that are finished (delivered or dead).
 * A pending delivery keeps every attempt, however old: its count and last errors are what
 * the operator reads while it is still being retried.
 */
export async function purgeOldDeliveryAttempts(
  db: Queryable,
  retentionDays: number,
  batch = 1000,
): Promise<number> {
  const res = await db.query(
    `DELETE FROM delivery_attempts WHERE (id, started_at) IN (
       SELECT a.id, a.started_at FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
       WHERE a.started_at < now() - $1 * interval '1 day' AND d.status <> 'pending'
       ORDER BY a.started_at LIMIT $2 FOR UPDATE OF a SKIP LOCKED)`,
    [retentionDays, batch],
  );
  return res.rowCount ?? 0;
}

/** Transmissions older than any the providers' age limits still accept. */
export async function purgeOldTransmissions(
  db: Queryable,
  olderThanDays: number,
  batch = 1000,
): Promise<number> {
  const res = await db.query(
    `DELETE FROM provider_transmissions WHERE (provider, transmission_id) IN (
       SELECT provider, transmission_id FROM provider_transmissions
       WHERE received_at < now() - $1 * interval '1 day'
       ORDER BY received_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [olderThanDays, batch],
  );
  return res.rowCount ?? 0;
}

/**
 * Dashboard sessions that ended (sign-out) or expired more than a day ago: they open nothing
 * any more, and the audit log keeps the sign-in and sign-out. Sessions still live stay.
 */
export async function purgeEndedSessions(db: Queryable, batch = 1000): Promise<number> {
  const res = await db.query(
    `DELETE FROM operator_sessions WHERE id_hash IN (
       SELECT id_hash FROM operator_sessions
       WHERE least(coalesce(ended_at, expires_at), expires_at) < now() - interval '1 day'
       LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    [batch],
  );
  return res.rowCount ?? 0;
}
