/**
 * The operator's read API (issue 5): thin handlers, parse -> service -> reply. Registered
 * inside adminRoutes, behind its bearer-token hook.
 */
import type { FastifyInstance } from 'fastify';
import {
  parseDays,
  parseListLimit,
  payoutWindow,
  reportWindow,
  resolveMode,
} from '../../domain/adminQuery.js';
import { exactJson } from '../../domain/exactJson.js';
import { parsePaymentSearch } from '../../domain/paymentSearch.js';
import type { Gateway } from '../../gateway.js';
import { balances, payouts, type ReportDeps } from '../../services/balances.js';
import { listLedger } from '../../services/ledger.js';
import { listPayments, listRefunds } from '../../services/reports/lists.js';
import { getPaymentDetail } from '../../services/reports/paymentDetail.js';
import { summary, timeseries } from '../../services/reports/summary.js';
import { sendJson } from '../reply.js';

type Query = Partial<Record<string, string>>;

/** A repeated parameter (?mode=a&mode=b) counts as its first value. */
function one(q: Query, name: string): string | undefined {
  const v: unknown = q[name];
  return Array.isArray(v) ? (v[0] as string | undefined) : (v as string | undefined);
}

function optional(v: string | undefined): string | null {
  return v === undefined || v === '' ? null : v;
}

export function registerReportRoutes(app: FastifyInstance, gw: Gateway): void {
  const deps: ReportDeps = {
    pool: gw.pool,
    providers: gw.providers,
    providerTimeoutMs: gw.config.providerTimeoutMs,
    log: gw.log,
    now: gw.now,
  };
  const now = () => new Date(gw.now());

  app.get<{ Querystring: Query }>('/summary', async (req, reply) => {
    const asOf = now();
    const w = reportWindow(
      {
        days: one(req.query, 'days'),
        since: one(req.query, 'since'),
        until: one(req.query, 'until'),
      },
      asOf,
    );
    const body = await summary(gw.pool, w, resolveMode(one(req.query, 'mode')), asOf);
    return sendJson(reply, 200, exactJson(body));
  });

  app.get<{ Querystring: Query }>('/timeseries', async (req, reply) => {
    const days = parseDays(one(req.query, 'days'));
    const body = await timeseries(gw.pool, days, resolveMode(one(req.query, 'mode')), now());
    return sendJson(reply, 200, exactJson(body));
  });

  app.get<{ Querystring: Query }>('/payments', async (req, reply) => {
    const body = await listPayments(gw.pool, {
      mode: resolveMode(one(req.query, 'mode')),
      status: optional(one(req.query, 'status')),
      before: optional(one(req.query, 'before')),
      limit: parseListLimit(one(req.query, 'limit')),
      search: parsePaymentSearch({
        q: one(req.query, 'q'),
        app_id: one(req.query, 'app_id'),
        created_from: one(req.query, 'created_from'),
        created_to: one(req.query, 'created_to'),
        amount_min: one(req.query, 'amount_min'),
        amount_max: one(req.query, 'amount_max'),
      }),
    });
    return sendJson(reply, 200, body);
  });

  app.get<{ Querystring: Query }>('/refunds', async (req, reply) => {
    const body = await listRefunds(gw.pool, {
      mode: resolveMode(one(req.query, 'mode')),
      before: optional(one(req.query, 'before')),
      limit: parseListLimit(one(req.query, 'limit')),
    });
    return sendJson(reply, 200, body);
  });

  app.get<{ Params: { id: string } }>('/payments/:id', async (req, reply) =>
    sendJson(reply, 200, await getPaymentDetail(gw.pool, req.params.id)),
  );

  app.get<{ Querystring: Query }>('/ledger', async (req, reply) => {
    const body = await listLedger(gw.pool, {
      limit: one(req.query, 'limit'),
      before: one(req.query, 'before'),
      provider: one(req.query, 'provider'),
      currency: one(req.query, 'currency'),
      app_id: one(req.query, 'app_id'),
      mode: one(req.query, 'mode'),
      type: one(req.query, 'type'),
      since: one(req.query, 'since'),
      until: one(req.query, 'until'),
    });
    return sendJson(reply, 200, body);
  });

  app.get('/balances', async (_req, reply) =>
    sendJson(reply, 200, exactJson(await balances(deps))),
  );

  app.get<{ Querystring: Query }>('/payouts', async (req, reply) => {
    const w = payoutWindow(
      { since: one(req.query, 'since'), until: one(req.query, 'until') },
      now(),
    );
    return sendJson(reply, 200, await payouts(deps, w.since, w.until));
  });
}
