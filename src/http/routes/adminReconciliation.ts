/**
 * Reconciliation and the CSV exports (issue 27, docs/api.md#reconciliation): thin handlers,
 * parse -> service -> reply. Registered inside adminRoutes, behind its bearer-token hook.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { apiError } from '../../domain/errors.js';
import { exactJson } from '../../domain/exactJson.js';
import { reconciliationDeps, type Gateway } from '../../gateway.js';
import { ledgerCsv, reconciliationCsv } from '../../services/exports.js';
import {
  getReconciliation,
  parseTarget,
  runReconciliation,
} from '../../services/reconciliation.js';
import { listSettlementFiles, uploadSettlementFile } from '../../services/reconciliationImports.js';
import { jsonBody, rawBody, sendJson } from '../reply.js';
import { requestAudit } from './adminOps.js';

type Query = Partial<Record<string, string>>;

/** A repeated parameter (?a=1&a=2) counts as its first value. */
function one(q: Query, name: string): string | undefined {
  const v: unknown = q[name];
  return Array.isArray(v) ? (v[0] as string | undefined) : (v as string | undefined);
}

function sendCsv(reply: FastifyReply, csv: { filename: string; body: Readable }) {
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${csv.filename}"`)
    .send(csv.body);
}

/**
 * An export within the process's cap (services/exportSlots.ts), on the exports' own pool.
 * The slot comes back when the body closes: read to the end, failed, or destroyed because
 * the client went away (by then the cursor's transaction has ended).
 */
function sendExport(
  gw: Gateway,
  reply: FastifyReply,
  build: (pool: Gateway['exportPool']) => { filename: string; body: Readable },
) {
  const giveBack = gw.exportSlots.take();
  let csv: { filename: string; body: Readable };
  try {
    csv = build(gw.exportPool);
  } catch (err) {
    giveBack();
    throw err;
  }
  csv.body.once('close', giveBack);
  return sendCsv(reply, csv);
}

export function registerReconciliationRoutes(app: FastifyInstance, gw: Gateway): void {
  const deps = reconciliationDeps(gw);
  const target = (q: Query) =>
    parseTarget(
      { provider: one(q, 'provider'), date: one(q, 'date'), mode: one(q, 'mode') },
      gw.now(),
    );

  app.get<{ Querystring: Query }>('/reconciliation', async (req, reply) =>
    sendJson(reply, 200, exactJson(await getReconciliation(gw.pool, target(req.query)))),
  );

  app.post('/reconciliation/runs', async (req, reply) => {
    const body = jsonBody(req);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw apiError('invalid', 'body must be a JSON object');
    }
    const t = parseTarget(body as Record<string, unknown>, gw.now());
    const audit = requestAudit(req, 'reconciliation.run');
    return sendJson(reply, 200, exactJson(await runReconciliation(deps, t, 'operator', audit)));
  });

  app.post<{ Querystring: Query }>(
    '/reconciliation/imports',
    { bodyLimit: gw.config.reconciliation.importMaxBytes },
    async (req, reply) => {
      const res = await uploadSettlementFile(
        gw.pool,
        {
          provider: one(req.query, 'provider'),
          date: one(req.query, 'date'),
          mode: one(req.query, 'mode'),
          filename: one(req.query, 'filename'),
        },
        rawBody(req),
        { requestId: String(req.id), sourceIp: req.ip },
        requestAudit(req, 'reconciliation.import'),
        gw.now(),
      );
      return sendJson(reply, res.status, res.body);
    },
  );

  app.get<{ Querystring: Query }>('/reconciliation/imports', async (req, reply) =>
    sendJson(
      reply,
      200,
      await listSettlementFiles(gw.pool, {
        provider: one(req.query, 'provider'),
        limit: one(req.query, 'limit'),
      }),
    ),
  );

  app.get<{ Querystring: Query }>('/reconciliation/export.csv', async (req, reply) =>
    sendExport(gw, reply, (pool) =>
      reconciliationCsv(
        pool,
        {
          provider: one(req.query, 'provider'),
          date: one(req.query, 'date'),
          mode: one(req.query, 'mode'),
        },
        gw.now(),
      ),
    ),
  );

  app.get<{ Querystring: Query }>('/ledger/export.csv', async (req, reply) =>
    sendExport(gw, reply, (pool) =>
      ledgerCsv(
        pool,
        {
          since: one(req.query, 'since'),
          until: one(req.query, 'until'),
          provider: one(req.query, 'provider'),
          mode: one(req.query, 'mode'),
        },
        gw.now(),
      ),
    ),
  );
}
