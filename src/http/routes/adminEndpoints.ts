/**
 * Webhook endpoints of an app (docs/api.md#webhook-endpoints). Registered inside adminRoutes,
 * behind its bearer-token hook.
 */
import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../../gateway.js';
import {
  createEndpoint,
  disableEndpoint,
  listAppEndpoints,
  patchEndpoint,
  recoverEndpoint,
  rotateSecret,
  type EndpointDeps,
} from '../../services/endpoints.js';
import { getEndpointStats } from '../../services/endpointHealth.js';
import { jsonBody, sendJson } from '../reply.js';
import { requestAudit } from './adminOps.js';

type Ids = { Params: { id: string; eid: string } };

export function registerEndpointRoutes(app: FastifyInstance, gw: Gateway): void {
  const deps: EndpointDeps = {
    db: gw.pool,
    masterKey: gw.config.masterKey,
    allowPrivateWebhookTargets: gw.config.allowPrivateWebhookTargets,
    resolveHost: gw.webhookNetwork.resolve,
  };
  const base = '/apps/:id/endpoints';
  app.post<{ Params: { id: string } }>(base, async (req, reply) =>
    sendJson(
      reply,
      201,
      await createEndpoint(
        deps,
        req.params.id,
        jsonBody(req),
        requestAudit(req, 'endpoint.create'),
      ),
    ),
  );
  app.get<{ Params: { id: string } }>(base, async (req, reply) =>
    sendJson(reply, 200, await listAppEndpoints(deps, req.params.id)),
  );
  app.patch<Ids>(`${base}/:eid`, async (req, reply) =>
    sendJson(
      reply,
      200,
      await patchEndpoint(
        deps,
        req.params.id,
        req.params.eid,
        jsonBody(req),
        requestAudit(req, 'endpoint.update'),
      ),
    ),
  );
  app.delete<Ids>(`${base}/:eid`, async (req, reply) =>
    sendJson(
      reply,
      200,
      await disableEndpoint(
        deps,
        req.params.id,
        req.params.eid,
        requestAudit(req, 'endpoint.disable'),
      ),
    ),
  );
  app.post<Ids>(`${base}/:eid/rotate-secret`, async (req, reply) =>
    sendJson(
      reply,
      200,
      await rotateSecret(
        deps,
        req.params.id,
        req.params.eid,
        jsonBody(req),
        requestAudit(req, 'endpoint.rotate_secret'),
      ),
    ),
  );
  app.post<Ids>(`${base}/:eid/recover`, async (req, reply) =>
    sendJson(
      reply,
      202,
      await recoverEndpoint(
        deps,
        req.params.id,
        req.params.eid,
        jsonBody(req),
        requestAudit(req, 'endpoint.recover'),
      ),
    ),
  );
  app.get<Ids & { Querystring: { days?: string } }>(`${base}/:eid/stats`, async (req, reply) =>
    sendJson(
      reply,
      200,
      await getEndpointStats(deps, req.params.id, req.params.eid, req.query.days),
    ),
  );
}
