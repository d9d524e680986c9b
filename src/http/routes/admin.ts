import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { parseListLimit } from '../../domain/adminQuery.js';
import { apiError } from '../../domain/errors.js';
import { PARAMS } from '../../domain/schemas.js';
import { serviceDeps, type Gateway } from '../../gateway.js';
import {
  createApp,
  listApps,
  patchApp,
  regenerateKeys,
  type AppServiceDeps,
} from '../../services/apps.js';
import { adminCancel } from '../../services/payments/cancel.js';
import { listDeliveries, retryWebhook } from '../../services/deliveries.js';
import { getDispute, listDisputes } from '../../services/disputes.js';
import { adminRefund } from '../../services/refunds/admin.js';
import { listInboundEvents } from '../../services/inboundArchive.js';
import { registry } from '../../metrics.js';
import { header, jsonBody, rawBody, sendJson } from '../reply.js';
import { listExceptions, resolveException } from '../../services/exceptions.js';
import { registerOpsRoutes, requestAudit } from './adminOps.js';
import { registerReconciliationRoutes } from './adminReconciliation.js';
import { registerReportRoutes } from './adminReports.js';
import { registerEndpointRoutes } from './adminEndpoints.js';
import { parseGraceHours } from '../../services/endpoints.js';
import { guardAdmin } from './adminGuard.js';
import { registerOperatorRoutes } from './adminOperators.js';

/**
 * Every admin route and /metrics: a credential (ADMIN_TOKEN, a personal token, a dashboard
 * session) and the role matrix (adminGuard.ts). Cookies are parsed here only, when a request
 * has no Authorization header; the plugin is scoped to these routes.
 */
async function guarded(app: FastifyInstance, gw: Gateway): Promise<void> {
  await app.register(fastifyCookie, { hook: false });
  app.addHook('onRequest', async (req) => {
    await guardAdmin(gw, app, req);
  });
}

/** docs/api.md#health-and-metrics: Prometheus text at GET /metrics, admin token required. */
export function metricsRoute(gw: Gateway) {
  return async (app: FastifyInstance) => {
    await guarded(app, gw);
    app.get('/metrics', async (_req, reply) =>
      reply
        .code(200)
        .type(registry.contentType)
        .send(await registry.metrics()),
    );
  };
}

export function adminRoutes(gw: Gateway) {
  const apps: AppServiceDeps = {
    db: gw.pool,
    masterKey: gw.config.masterKey,
    allowPrivateWebhookTargets: gw.config.allowPrivateWebhookTargets,
    resolveHost: gw.webhookNetwork.resolve,
    onAppChanged: (appId) => gw.appChanged(appId),
  };
  return async (app: FastifyInstance) => {
    await guarded(app, gw);

    app.get('/apps', async (_req, reply) => sendJson(reply, 200, { apps: await listApps(apps) }));
    app.post('/apps', async (req, reply) =>
      sendJson(reply, 201, await createApp(apps, jsonBody(req), requestAudit(req, 'app.create'))),
    );
    app.patch<{ Params: { id: string } }>('/apps/:id', async (req, reply) =>
      sendJson(
        reply,
        200,
        await patchApp(apps, req.params.id, jsonBody(req), requestAudit(req, 'app.update')),
      ),
    );
    app.post<{ Params: { id: string } }>('/apps/:id/regenerate-keys', async (req, reply) =>
      sendJson(
        reply,
        200,
        await regenerateKeys(
          apps,
          req.params.id,
          parseGraceHours(jsonBody(req)),
          requestAudit(req, 'app.regenerate_keys'),
        ),
      ),
    );

    const refundDeps = serviceDeps(gw);
    app.post<{ Params: { id: string } }>('/payments/:id/cancel', async (req, reply) => {
      const audit = requestAudit(req, 'payment.cancel');
      const res = await adminCancel({ ...refundDeps, audit }, req.params.id);
      return sendJson(reply, res.status, res.body);
    });
    app.post<{ Params: { id: string } }>('/payments/:id/refund', async (req, reply) => {
      const res = await adminRefund(
        { ...refundDeps, audit: requestAudit(req, 'payment.refund') },
        req.params.id,
        rawBody(req),
        header(req, 'idempotency-key'),
      );
      return sendJson(reply, res.status, res.body);
    });
    app.post<{ Params: { id: string } }>('/payments/:id/retry-webhook', async (req, reply) =>
      sendJson(
        reply,
        202,
        await retryWebhook(gw.pool, req.params.id, requestAudit(req, 'payment.retry_webhook')),
      ),
    );
    app.get<{ Querystring: { payment_id?: string } }>('/inbound_events', async (req, reply) =>
      sendJson(reply, 200, {
        events: await listInboundEvents(gw.pool, req.query.payment_id ?? null),
      }),
    );
    app.get<{ Querystring: { status?: string; limit?: string } }>(
      '/deliveries',
      async (req, reply) => {
        const status = req.query.status ?? null;
        const statuses: readonly string[] = PARAMS.deliveryStatus.enum;
        if (status !== null && !statuses.includes(status)) {
          throw apiError('invalid', `status must be one of ${statuses.join(', ')}`);
        }
        const limit = parseListLimit(req.query.limit);
        return sendJson(reply, 200, { deliveries: await listDeliveries(gw.pool, status, limit) });
      },
    );
    app.get<{ Querystring: { limit?: string; before?: string } }>(
      '/exceptions',
      async (req, reply) => sendJson(reply, 200, await listExceptions(gw.pool, req.query)),
    );
    app.get<{ Querystring: Partial<Record<string, string>> }>('/disputes', async (req, reply) =>
      sendJson(reply, 200, await listDisputes(gw.pool, req.query)),
    );
    app.get<{ Params: { id: string } }>('/disputes/:id', async (req, reply) =>
      sendJson(reply, 200, await getDispute(gw.pool, req.params.id)),
    );
    app.post<{ Params: { id: string } }>('/exceptions/:id/resolve', async (req, reply) =>
      sendJson(
        reply,
        200,
        await resolveException(
          gw.pool,
          req.params.id,
          jsonBody(req),
          requestAudit(req, 'exception.resolve'),
        ),
      ),
    );
    registerReportRoutes(app, gw);
    registerOpsRoutes(app, gw);
    registerEndpointRoutes(app, gw);
    registerReconciliationRoutes(app, gw);
    registerOperatorRoutes(app, gw);
  };
}
