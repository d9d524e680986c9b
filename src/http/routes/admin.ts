import type { FastifyInstance } from 'fastify';
import { authenticateAdmin } from '../../auth/adminAuth.js';
import { ApiError } from '../../domain/errors.js';
import type { Gateway } from '../../gateway.js';
import {
  createApp,
  listApps,
  patchApp,
  regenerateKeys,
  type AppServiceDeps,
} from '../../services/apps.js';
import { header, jsonBody, sendJson } from '../reply.js';

function body(req: Parameters<typeof jsonBody>[0]): unknown {
  const parsed = jsonBody(req);
  if (typeof parsed === 'symbol') throw new ApiError(400, 'invalid JSON body');
  return parsed;
}

export function adminRoutes(gw: Gateway) {
  const apps: AppServiceDeps = {
    db: gw.pool,
    masterKey: gw.config.masterKey,
    allowPrivateWebhookTargets: gw.config.allowPrivateWebhookTargets,
  };
  return async (app: FastifyInstance) => {
    app.addHook('onRequest', async (req) =>
      authenticateAdmin(header(req, 'authorization'), gw.config.adminToken),
    );

    app.get('/apps', async (_req, reply) => sendJson(reply, 200, { apps: await listApps(apps) }));
    app.post('/apps', async (req, reply) => sendJson(reply, 201, await createApp(apps, body(req))));
    app.patch<{ Params: { id: string } }>('/apps/:id', async (req, reply) =>
      sendJson(reply, 200, await patchApp(apps, req.params.id, body(req))),
    );
    app.post<{ Params: { id: string } }>('/apps/:id/regenerate-keys', async (req, reply) =>
      sendJson(reply, 200, await regenerateKeys(apps, req.params.id)),
    );
  };
}
