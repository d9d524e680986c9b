/**
 * GET /v1/events: an app's own outbound events, oldest first after a cursor, so an app that
 * was down catches up by itself (docs/api.md, "Events"). POST /admin/apps/{id}/redeliver:
 * fresh deliveries of an app's events in a time range.
 */
import { findAppById } from '../db/apps.js';
import { appEventsAfter, enqueueRedeliveries, isAppEvent, type FeedRow } from '../db/events.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import { parseTimestamp } from '../domain/adminQuery.js';
import { apiError } from '../domain/errors.js';
import {
  integerParam,
  integerParamMessage,
  missingRequired,
  PARAMS,
  REDELIVER,
} from '../domain/schemas.js';
import type { Audit } from './audit.js';

export const EVENTS_MAX_LIMIT = PARAMS.eventsLimit.maximum;

/**
 * Byte budget of one page's payloads (docs/api.md#list-your-events). `limit` alone let a page
 * of events with large metadata reach about 100 MiB, held in memory while it is built; a page
 * now stops before the payload that would pass the budget, unless it is the page's first
 * (so an event larger than the budget still comes, alone, and paging moves on).
 */
export const EVENTS_PAGE_MAX_BYTES = 1_048_576;

export function parseEventsLimit(raw: string | undefined): number {
  const limit = integerParam(PARAMS.eventsLimit, raw);
  if (limit === null) throw apiError('invalid', integerParamMessage('limit', PARAMS.eventsLimit));
  return limit;
}

/**
 * The response body as text: each payload is spliced in as the exact bytes that were or
 * will be delivered (re-serializing parsed JSON could change numbers in app metadata).
 */
export async function listAppEvents(
  db: Queryable,
  appId: string,
  q: { after: string | undefined; limit: string | undefined },
): Promise<string> {
  const limit = parseEventsLimit(q.limit);
  let after = null;
  if (q.after !== undefined && q.after !== '') {
    if (q.after.length > PARAMS.eventsAfter.maxLength || !(await isAppEvent(db, appId, q.after))) {
      throw apiError('invalid', 'after must be an event id from a previous page');
    }
    after = q.after;
  }
  const rows = await appEventsAfter(db, appId, after, limit, EVENTS_PAGE_MAX_BYTES);
  const page: (FeedRow & { body: string })[] = [];
  for (const r of rows) {
    if (r.body === null) break;
    page.push({ ...r, body: r.body });
  }
  const events = page.map((r) => {
    const head = JSON.stringify({
      id: r.id,
      event: r.event_type,
      created_at: r.created_at.toISOString(),
    });
    const delivery =
      r.delivery_status === null
        ? null
        : {
            status: r.delivery_status,
            attempts: r.delivery_attempts,
            last_status_code: r.delivery_last_status_code,
          };
    // A damaged row's payload is null (docs/api.md#event-feed); the page goes on past it.
    const payload = r.body_unreadable === null ? r.body : 'null';
    return `${head.slice(0, -1)},"payload":${payload},"delivery":${JSON.stringify(delivery)}}`;
  });
  return `{"events":[${events.join(',')}],"has_more":${rows.length > page.length}}`;
}

export interface RedeliverRequest {
  since: Date;
  until: Date;
  onlyUndelivered: boolean;
}

export function parseRedeliver(body: unknown, now: Date): RedeliverRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw apiError('invalid', 'body must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  const missing = missingRequired(REDELIVER, b);
  if (missing.length > 0) throw apiError('missing_fields', missing.join(', '));
  const time = (name: string, v: unknown): Date | null => {
    if (v === undefined || v === null || v === '') return null;
    return parseTimestamp(name, typeof v === 'string' ? v : ' ');
  };
  const since = time('since', b.since) as Date;
  const until = time('until', b.until) ?? now;
  if (since.getTime() > until.getTime()) throw apiError('invalid', 'since must not be after until');
  const only = b.only_undelivered ?? false;
  if (typeof only !== 'boolean') throw apiError('invalid', REDELIVER.messages.only_undelivered);
  return { since, until, onlyUndelivered: only };
}

/** 202 { deliveries }: the count enqueued, committed with the request's audit entry. */
export async function redeliverAppEvents(
  pool: Pool,
  appId: string,
  body: unknown,
  now: Date,
  audit: Audit,
): Promise<{ deliveries: number }> {
  const req = parseRedeliver(body, now);
  return withTransaction(pool, async (tx) => {
    if (!(await findAppById(tx, appId))) throw apiError('app_not_found');
    const n = await enqueueRedeliveries(tx, appId, req.since, req.until, req.onlyUndelivered);
    await audit(tx, {
      targetType: 'app',
      targetId: appId,
      outcome: 'enqueued',
      details: {
        since: req.since.toISOString(),
        until: req.until.toISOString(),
        only_undelivered: req.onlyUndelivered,
        deliveries: n,
      },
    });
    return { deliveries: n };
  });
}
