import type { FastifyInstance } from 'fastify';
import { migrationsApplied } from '../../db/migrate.js';
import type { Gateway } from '../../gateway.js';
import { sendError, sendJson } from '../reply.js';

export function healthRoutes(gw: Gateway) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', async (_req, reply) => sendJson(reply, 200, { status: 'ok' }));
    app.get('/readyz', async (_req, reply) => {
      try {
        if (await migrationsApplied(gw.pool)) return sendJson(reply, 200, { status: 'ready' });
      } catch {
        // database unreachable: not ready
      }
      reply.header('Retry-After', '5');
      return sendError(reply, 'unavailable');
    });
  };
}
