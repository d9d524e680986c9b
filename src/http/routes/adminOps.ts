/**
 * Operator tools (issue 15): stuck work and sync, the audit log, bulk redelivery. Registered
 * inside adminRoutes, behind its bearer-token hook.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseListLimit } from '../../domain/adminQuery.js';
import { apiError } from '../../domain/errors.js';
import { serviceDeps, type Gateway } from '../../gateway.js';
import { auditFor, listAudit, type Audit, type AuditAction } from '../../services/audit.js';
import { redeliverAppEvents } from '../../services/events.js';
import { listStuck } from '../../services/stuck.js';
import { syncPayment } from '../../services/payments/sync.js';
import { jsonBody, sendJson } from '../reply.js';
import { actorOf, auditActor } from './adminGuard.js';

type Query = Partial<Record<string, string>>;

/** A repeated parameter (?a=1&a=2) counts as its first value. */
function one(q: Query, name: string): string | undefined {
  const v: unknown = q[name];
  return Array.isArray(v) ? (v[0] as string | undefined) : (v as string | undefined);
}

/**
 * The request's audit writer: who acted (the guard's actor), Fastify's request id, the socket
 * address (trustProxy applies).
 */
export function requestAudit(req: FastifyRequest, action: AuditAction): Audit {
  return auditFor(
    { requestId: String(req.id), sourceIp: req.ip, actor: auditActor(actorOf(req)) },
    action,
  );
}

export function registerOpsRoutes(app: FastifyInstance, gw: Gateway): void {
  app.get<{ Querystring: Query }>('/stuck', async (req, reply) =>
    sendJson(reply, 200, await listStuck(gw.pool, parseListLimit(one(req.query, 'limit')))),
  );

  app.post<{ Params: { id: string } }>('/payments/:id/sync', async (req, reply) =>
    sendJson(
      reply,
      200,
      await syncPayment(serviceDeps(gw), req.params.id, requestAudit(req, 'payment.sync')),
    ),
  );

  app.get<{ Querystring: Query }>('/audit', async (req, reply) =>
    sendJson(
      reply,
      200,
      await listAudit(gw.pool, {
        limit: one(req.query, 'limit'),
        before: one(req.query, 'before'),
        action: one(req.query, 'action'),
        target_id: one(req.query, 'target_id'),
        actor: one(req.query, 'actor'),
      }),
    ),
  );

  app.post<{ Params: { id: string } }>('/apps/:id/redeliver', async (req, reply) => {
    const body = jsonBody(req);
    if (typeof body === 'symbol') throw apiError('invalid_json');
    const res = await redeliverAppEvents(
      gw.pool,
      req.params.id,
      body,
      new Date(gw.now()),
      requestAudit(req, 'app.redeliver'),
    );
    return sendJson(reply, 202, res);
  });
}
