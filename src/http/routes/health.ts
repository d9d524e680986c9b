import type { FastifyInstance } from 'fastify';
import { migrationsApplied } from '../../db/migrate.js';
import type { Gateway } from '../../gateway.js';
import { sendError, sendJson } from '../reply.js';

export function healthRoutes(gw: Gateway) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', async (_req, reply) => sendJson(reply, 200, { status: 'ok' }));
    app.get('/readyz', async (_req, reply) => {
      try {
        if (await migrationsApplied(gw.pool)) {
          // Ready either way: a warning is for the operator, not a reason to take traffic away.
          const warnings = await gw.autovacuum.problems();
          return sendJson(reply, 200, {
            status: 'ready',
            ...(warnings.length ? { warnings } : {}),
          });
        }
      } catch {
        // database unreachable: not ready
      }
      reply.header('Retry-After', '5');
      return sendError(reply, 'unavailable');
    });
  };
}
