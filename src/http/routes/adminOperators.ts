/**
 * Operator accounts, personal tokens, the ADMIN_TOKEN switch, and who is asking
 * (docs/api.md#operators). Registered inside adminRoutes, behind its guard.
 */
import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../../gateway.js';
import {
  createOperator,
  createToken,
  getAdminTokenSetting,
  getOperator,
  listOperators,
  listTokens,
  patchAdminTokenSetting,
  patchOperator,
  revokeToken,
} from '../../services/operators.js';
import { jsonBody, sendJson } from '../reply.js';
import { actorOf } from './adminGuard.js';
import { requestAudit } from './adminOps.js';

type Id = { Params: { id: string } };

export function registerOperatorRoutes(app: FastifyInstance, gw: Gateway): void {
  const now = () => new Date(gw.now());

  app.get('/me', async (req, reply) => {
    const a = actorOf(req);
    return sendJson(
      reply,
      200,
      a.kind === 'root'
        ? {
            actor: 'root',
            email: null,
            name: null,
            role: 'admin',
            token_name: null,
            csrf_token: null,
          }
        : {
            actor: a.id,
            email: a.email,
            name: a.name,
            role: a.role,
            token_name: a.tokenName,
            csrf_token: a.csrfToken,
          },
    );
  });

  app.get('/operators', async (_req, reply) => sendJson(reply, 200, await listOperators(gw.pool)));
  app.post('/operators', async (req, reply) =>
    sendJson(
      reply,
      201,
      await createOperator(gw.pool, jsonBody(req), requestAudit(req, 'operator.create')),
    ),
  );
  app.get<Id>('/operators/:id', async (req, reply) =>
    sendJson(reply, 200, await getOperator(gw.pool, req.params.id)),
  );
  app.patch<Id>('/operators/:id', async (req, reply) =>
    sendJson(
      reply,
      200,
      await patchOperator(
        gw.pool,
        req.params.id,
        jsonBody(req),
        requestAudit(req, 'operator.update'),
      ),
    ),
  );

  app.get<Id>('/operators/:id/tokens', async (req, reply) =>
    sendJson(reply, 200, await listTokens(gw.pool, req.params.id)),
  );
  app.post<Id>('/operators/:id/tokens', async (req, reply) =>
    sendJson(
      reply,
      201,
      await createToken(
        gw.pool,
        req.params.id,
        jsonBody(req),
        now(),
        requestAudit(req, 'operator.token_create'),
      ),
    ),
  );
  app.post<{ Params: { id: string; token_id: string } }>(
    '/operators/:id/tokens/:token_id/revoke',
    async (req, reply) =>
      sendJson(
        reply,
        200,
        await revokeToken(
          gw.pool,
          req.params.id,
          req.params.token_id,
          now(),
          requestAudit(req, 'operator.token_revoke'),
        ),
      ),
  );

  app.get('/admin-token', async (_req, reply) =>
    sendJson(reply, 200, await getAdminTokenSetting(gw.pool)),
  );
  app.patch('/admin-token', async (req, reply) =>
    sendJson(
      reply,
      200,
      await patchAdminTokenSetting(gw.pool, jsonBody(req), requestAudit(req, 'admin_token.update')),
    ),
  );
}
