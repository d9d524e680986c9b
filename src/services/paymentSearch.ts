/**
 * What the gateway knows about a payment search that PostgreSQL's planner cannot
 * (docs/performance.md#admin-search-at-ten-million-payments).
 *
 * An app has one mode, fixed when it is created, and its payments carry it. The planner
 * takes `app_id` and `mode` for independent filters: `app_id=<a test app>&mode=live` looks to
 * it like thousands of matching rows, so it walks the app's payments newest first waiting
 * for one, and reads all of them (two seconds at ten million payments) to answer nothing.
 * Resolved here, such a search is known empty before payments is read, and a consistent
 * `mode` beside `app_id` is dropped, as it excludes nothing.
 */
import { findAppById } from '../db/apps.js';
import type { Queryable } from '../db/pool.js';
import type { Mode } from '../domain/types.js';

/** The mode to filter on, or 'none' when no payment can match (unknown app, other mode). */
export async function modeForApp(
  db: Queryable,
  mode: Mode | null,
  appId: string | null,
): Promise<Mode | null | 'none'> {
  if (appId === null) return mode;
  const app = await findAppById(db, appId);
  if (!app || (mode !== null && app.mode !== mode)) return 'none';
  return null;
}
