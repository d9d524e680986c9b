import type { FastifyInstance } from 'fastify';
import { sendJson } from '../reply.js';
import { buildOpenApiDocument } from './document.js';

/** GET /openapi.json: the OpenAPI 3.1 document, no authentication (docs/api.md#openapi). */
export function openApiRoute() {
  // Built once: it depends on the code only, never on configuration or data.
  const body = JSON.stringify(buildOpenApiDocument());
  return async (app: FastifyInstance) => {
    app.get('/openapi.json', async (_req, reply) => sendJson(reply, 200, body));
  };
}
