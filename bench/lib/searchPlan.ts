/**
 * One admin payment search's list statement under EXPLAIN (ANALYZE, BUFFERS): the bounded
 * statement of this version, or the one before it (bench/search10m.ts, issue 29).
 */
import pg from 'pg';
import { resolveMode } from '../../src/domain/adminQuery.js';
import { parsePaymentSearch } from '../../src/domain/paymentSearch.js';
import { modeForApp } from '../../src/services/paymentSearch.js';
import { listPayments } from '../../src/services/reports/lists.js';
import { listPaymentRowsUnbounded } from './unboundedSearch.js';

export interface SearchPlan {
  /** PostgreSQL's execution time of the list statement (EXPLAIN ANALYZE), ms. */
  ms: number;
  /** Pages of shared buffers it read (hit or not): what does not depend on the machine. */
  pages: number;
}

/**
 * The search's list statement under EXPLAIN (ANALYZE, BUFFERS), as the route sends it:
 * `viaService` through listPayments (this version: the bounded scan), else the statement
 * before it (bench/lib/unboundedSearch.ts) after the same service rewrite (modeForApp). No
 * statement (the service knew the answer empty) is 0 ms, 0 pages.
 */
export async function planOf(c: pg.Client, path: string, viaService: boolean): Promise<SearchPlan> {
  const u = new URL(path, 'http://x');
  const get = (k: string) => u.searchParams.get(k) ?? undefined;
  const search = parsePaymentSearch({
    q: get('q'),
    app_id: get('app_id'),
    created_from: get('created_from'),
    created_to: get('created_to'),
    amount_min: get('amount_min'),
    amount_max: get('amount_max'),
  });
  const out: SearchPlan = { ms: 0, pages: 0 };
  const db = {
    query: async (text: unknown, values?: unknown[]) => {
      if (typeof text !== 'string' || !text.startsWith('SELECT p.*')) {
        return c.query(text as string, values);
      }
      const res = await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
      const plan = (res.rows[0] as { 'QUERY PLAN': [PlanJson] })['QUERY PLAN'][0];
      out.ms = Math.round(plan['Execution Time'] * 100) / 100;
      out.pages = (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0);
      return { rows: [] };
    },
  };
  const mode = resolveMode(get('mode'));
  const q = {
    mode,
    status: get('status') ?? null,
    before: get('before') ?? null,
    limit: Number(get('limit') ?? 100),
    search,
  };
  await c.query(`SET statement_timeout = '60s'`);
  if (viaService) await listPayments(db as never, q);
  else {
    const m = await modeForApp(c, mode === '' ? null : mode, search.appId);
    if (m !== 'none') await listPaymentRowsUnbounded(db as never, { ...q, mode: m });
  }
  return out;
}

interface PlanJson {
  'Execution Time': number;
  Plan: { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
}
