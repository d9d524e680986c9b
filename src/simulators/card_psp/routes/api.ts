import type { FastifyInstance } from 'fastify';
import type { CardPspSim } from '../context.js';
import { wireCheckout, wireSubscription } from '../objects.js';
import { apiError } from '../protocol.js';
import { createCheckoutHandler } from './createCheckout.js';
import { registerListRoutes } from './lists.js';

/** The provider's API (mounted under /v1): checkouts, subscriptions, order and refund lists; Bearer token on every call. */
export function registerApiRoutes(app: FastifyInstance, sim: CardPspSim): void {
  const { clock, checkouts, subscriptions, context, authorized } = sim;
  const createHandler = createCheckoutHandler(sim);
  app.addHook('onRequest', async (req, reply) => {
    if (!authorized(req)) {
      reply.header('www-authenticate', 'Bearer error="invalid_token"');
      return reply
        .code(401)
        .type('application/json')
        .send(
          JSON.stringify({
            error: 'invalid_token',
            error_description:
              'The access token provided is expired, revoked, malformed, or invalid for other reasons.',
          }),
        );
    }
  });

  registerListRoutes(app, sim);

  app.post('/checkouts/', createHandler);
  app.post('/checkouts', createHandler);

  app.get<{ Params: { id: string } }>('/checkouts/:id', async (req, reply) => {
    const c = await checkouts.get(req.params.id);
    if (!c) return apiError(reply, 404, 'ResourceNotFound', 'Not found');
    const wire = wireCheckout(c, context(clock.now()));
    return reply.code(200).type('application/json').send(JSON.stringify(wire));
  });

  app.get<{ Params: { id: string } }>('/subscriptions/:id', async (req, reply) => {
    const idx = await subscriptions.get(req.params.id);
    const c = idx ? await checkouts.get(idx.checkout_id) : null;
    if (!c?.subscription) return apiError(reply, 404, 'ResourceNotFound', 'Not found');
    const wire = wireSubscription(c, c.subscription, context(clock.now()));
    return reply.code(200).type('application/json').send(JSON.stringify(wire));
  });
}
