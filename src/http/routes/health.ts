/** Health, metrics and this API's own document (docs/api.md#health-and-metrics). */
import { migrationsApplied } from '../../db/migrate.js';
import { registry } from '../../metrics.js';
import * as E from '../openapi/errors.js';
import { sendError, sendJson } from '../reply.js';
import { defineRoutes } from './route.js';

export const healthRoutes = defineRoutes(
  [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      tag: 'Health',
      summary: 'The process is up (also while starting and draining)',
      security: 'none',
      ok: { 200: { schema: 'Health', description: 'Up.', example: { status: 'ok' } } },
      errors: E.fixed('internal'),
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      tag: 'Health',
      summary: 'The database answers and every migration is applied',
      security: 'none',
      ok: { 200: { schema: 'Ready', description: 'Ready.', example: { status: 'ready' } } },
      errors: E.EVERY_ROUTE,
    },
  ],
  ({ gw }) => ({
    healthz: async (_req, reply) => sendJson(reply, 200, { status: 'ok' }),
    readyz: async (_req, reply) => {
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
    },
  }),
);

/** Prometheus text at GET /metrics; mounted behind the admin guard. */
export const metricsRoutes = defineRoutes(
  [
    {
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      tag: 'Health',
      summary: 'Prometheus metrics',
      security: 'admin',
      ok: {
        200: {
          text: 'text/plain',
          description: 'Prometheus text exposition format 0.0.4.',
          example: '# HELP paygate_deliveries_dead_total Deliveries given up\n',
        },
      },
      errors: {},
    },
  ],
  () => ({
    metrics: async (_req, reply) =>
      reply
        .code(200)
        .type(registry.contentType)
        .send(await registry.metrics()),
  }),
);

/** GET /openapi.json: the OpenAPI 3.1 document, no authentication (docs/api.md#openapi). */
export const openApiRoutes = defineRoutes(
  [
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'openapi',
      tag: 'Health',
      summary: 'This document',
      security: 'none',
      ok: { 200: { schema: 'OpenApiDocument', description: 'OpenAPI 3.1.' } },
      errors: {},
    },
  ],
  // Built once per server: it depends on the code only, never on configuration or data.
  ({ openApiJson }) => ({
    openapi: async (_req, reply) => sendJson(reply, 200, openApiJson),
  }),
);
