import type { FastifyInstance } from 'fastify';
import { serviceDeps, type Gateway } from '../../gateway.js';
import { PROVIDERS } from '../../domain/types.js';
import { handleProviderWebhook, type InboundDeps } from '../../services/inbound.js';
import { markDurable, rawBody, sendJson } from '../reply.js';

/** Spec 4.4: POST /webhooks/<provider>, unversioned, authenticated by the provider's signature. */
export function webhookRoutes(gw: Gateway) {
  const deps: InboundDeps = serviceDeps(gw);
  return async (app: FastifyInstance) => {
    for (const slug of PROVIDERS) {
      app.post(`/webhooks/${slug}`, async (req, reply) => {
        const ack = await handleProviderWebhook(deps, slug, req.headers, rawBody(req));
        // Its last write, the archived outcome, committed synchronously.
        markDurable(req);
        return sendJson(reply, 200, ack);
      });
    }
  };
}
