/**
 * SQL of the apps' events feed (GET /v1/events) and of bulk redelivery. An event's position
 * is (txid, created_at, id): the inserting transaction's id orders events by commit, and only
 * events of transactions older than every one still running in this database are listed, so
 * no event can later appear behind a cursor an app already holds (migration 0008).
 */
import { UNDELIVERED_EVENT_TYPES } from '../domain/events.js';
import { DELIVERY_CHANNEL } from './deliveries.js';
import { readEventBody, type StoredEventBody } from './eventBody.js';
import type { Queryable } from './pool.js';

/** True for one of the app's own events; false for an unknown id or another app's. */
export async function isAppEvent(db: Queryable, appId: string, eventId: string): Promise<boolean> {
  const res = await db.query(`SELECT 1 FROM outbound_events WHERE id = $1 AND app_id = $2`, [
    eventId,
    appId,
  ]);
  return res.rowCount === 1;
}

export interface FeedRow {
  id: string;
  event_type: string;
  created_at: Date;
  /** Null for a row past the page (its limit or byte budget): it only tells that more follow. */
  body: string | null;
  /** Why a body of the page cannot be read back (a damaged row; its body is then ''). */
  body_unreadable: string | null;
  delivery_status: string | null;
  delivery_attempts: number | null;
  delivery_last_status_code: number | null;
}

/**
 * The position below which every transaction of this database has ended: the oldest one still
 * running here, else the snapshot's xmax. Transactions ids are cluster-wide, so those of
 * backends provably in another database are left out (on a shared server they would hold the
 * feed back); any other one counts, which can delay the feed but never skip an event.
 */
const HORIZON = `SELECT COALESCE(
    (SELECT min(x) FROM snap, pg_snapshot_xip(snap.s) AS x
     WHERE NOT EXISTS (
       SELECT 1 FROM pg_stat_activity a
       WHERE a.datname <> current_database() AND a.backend_xid IS NOT NULL
         AND a.backend_xid::text = (x::text::numeric % 4294967296)::text)),
    (SELECT pg_snapshot_xmax(s) FROM snap))`;

/**
 * The app's committed events after `after`, oldest first, with each one's latest delivery:
 * at most `limit` + 1 rows. Bodies are read for the first `limit` rows only, and only while
 * their running total stays within `maxBytes` (the first row's always, so paging moves on);
 * the other rows come back with a null body and only tell that more events follow. Sizes come
 * from body_size (a body stored packed, db/eventBody.ts) or octet_length (one stored as text,
 * which reads the stored length without detoasting), so neither PostgreSQL nor this process
 * reads or unpacks a body that does not go out.
 */
export async function appEventsAfter(
  db: Queryable,
  appId: string,
  afterId: string | null,
  limit: number,
  maxBytes: number,
): Promise<FeedRow[]> {
  const values: unknown[] = [appId, limit, maxBytes];
  let cursor = '';
  if (afterId !== null) {
    // The position is read in SQL: a JavaScript Date would drop created_at's microseconds.
    values.push(afterId);
    cursor = `AND (e.txid, e.created_at, e.id) >
      (SELECT txid, created_at, id FROM outbound_events WHERE id = $4 AND app_id = $1)`;
  }
  const res = await db.query<FeedRow & StoredEventBody & { within: boolean }>(
    `WITH snap AS MATERIALIZED (SELECT pg_current_snapshot() AS s),
     page AS MATERIALIZED (
       SELECT e.id, e.txid, e.created_at, e.event_type,
         sum(coalesce(e.body_size, octet_length(e.body))) OVER (ORDER BY e.txid, e.created_at, e.id) AS running,
         row_number() OVER (ORDER BY e.txid, e.created_at, e.id) AS n
       FROM outbound_events e
       WHERE e.app_id = $1 ${cursor}
         AND e.txid < (${HORIZON})
       ORDER BY e.txid, e.created_at, e.id
       LIMIT $2 + 1)
     SELECT p.id, p.event_type, p.created_at,
       w.within, CASE WHEN w.within THEN b.body END AS body,
       CASE WHEN w.within THEN b.body_packed END AS body_packed, b.body_codec, b.body_size,
       d.status AS delivery_status, d.attempts AS delivery_attempts,
       d.last_status_code AS delivery_last_status_code
     FROM page p
     CROSS JOIN LATERAL (SELECT p.n <= $2 AND (p.n = 1 OR p.running <= $3) AS within) w
     JOIN outbound_events b ON b.id = p.id
     LEFT JOIN LATERAL (
       SELECT status, attempts, last_status_code FROM deliveries
       WHERE event_id = p.id AND endpoint_id IS NULL ORDER BY created_at DESC, id DESC LIMIT 1) d ON true
     ORDER BY p.txid, p.created_at, p.id`,
    values,
  );
  return res.rows.map((r) => {
    const read = r.within ? readEventBody(r) : null;
    return {
      id: r.id,
      event_type: r.event_type,
      created_at: r.created_at,
      body: read === null ? null : 'body' in read ? read.body : '',
      body_unreadable: read !== null && 'unreadable' in read ? read.unreadable : null,
      delivery_status: r.delivery_status,
      delivery_attempts: r.delivery_attempts,
      delivery_last_status_code: r.delivery_last_status_code,
    };
  });
}

/**
 * Fresh deliveries (same event ids, same bodies) of the app's events created in
 * [since, until) (never of the kinds sent to no URL); with onlyUndelivered, of those no delivery has delivered yet. Call inside
 * the transaction of the request; NOTIFY wakes the delivery workers at its commit.
 */
export async function enqueueRedeliveries(
  tx: Queryable,
  appId: string,
  since: Date,
  until: Date,
  onlyUndelivered: boolean,
): Promise<number> {
  const res = await tx.query(
    `INSERT INTO deliveries (id, event_id, app_id)
     SELECT 'dlv_' || substr(md5(gen_random_uuid()::text), 1, 24), e.id, e.app_id
     FROM outbound_events e
     WHERE e.app_id = $1 AND e.created_at >= $2 AND e.created_at < $3
       AND e.event_type <> ALL ($5::text[])
       AND (NOT $4::boolean OR NOT EXISTS (
         SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'delivered'))`,
    [appId, since, until, onlyUndelivered, UNDELIVERED_EVENT_TYPES],
  );
  const n = res.rowCount ?? 0;
  if (n > 0) await tx.query(`NOTIFY ${DELIVERY_CHANNEL}`);
  return n;
}
