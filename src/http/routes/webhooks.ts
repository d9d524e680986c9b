import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { PROVIDERS } from '../../domain/types.js';
import { serviceDeps, type Gateway } from '../../gateway.js';
import { handleProviderWebhook } from '../../services/inbound.js';
import { markDurable, rawBody, sendJson } from '../reply.js';

/** docs/api.md#provider-webhooks: POST /webhooks/<provider>, unversioned, authenticated by the provider's signature. */
export function webhookRoutes(gw: Gateway) {
  const deps = {
    ...serviceDeps(gw),
    limits: gw.config.webhooks,
    unverified: gw.unverifiedWebhooks,
  };
  return async (app: FastifyInstance) => {
    for (const slug of PROVIDERS) {
      // Each provider's own size bound, enforced while the body is read (413 body too large).
      const bodyLimit = gw.config.webhooks.bodyLimitBytes[slug];
      app.post(`/webhooks/${slug}`, { bodyLimit }, async (req, reply) => {
        try {
          const ack = await handleProviderWebhook(deps, slug, req.headers, rawBody(req), req.ip);
          // Its last write, the archived outcome, committed synchronously.
          markDurable(req);
          return sendJson(reply, 200, ack);
        } catch (err) {
          // Refused before anything was written: no durability barrier to wait for.
          if (err instanceof ApiError && err.status === 429) markDurable(req);
          throw err;
        }
      });
    }
  };
}
