/**
 * card_psp simulator (docs/api.md#test-mode): a Polar-like checkout API under /sim/card_psp with hosted checkout
 * pages, orders, one monthly subscription per paid checkout, provider-side refunds, and
 * Standard Webhooks-signed events posted to /webhooks/card_psp. State lives in sim_objects.
 */
import type { FastifyInstance } from 'fastify';
import type { SimulatorHost } from '../host.js';
import type { SimClock } from '../common.js';
import { cardSimFor } from './context.js';
import { registerActionRoutes } from './routes/actions.js';
import { registerApiRoutes } from './routes/api.js';
import { registerPageRoutes } from './routes/page.js';

export { signCardPspEvent } from './signing.js';

export function cardPspSimulator(gw: SimulatorHost, clock: SimClock) {
  return async (app: FastifyInstance) => {
    const sim = cardSimFor(gw, clock);
    // The provider's API: Bearer access token on every /v1 call.
    await app.register(async (api) => registerApiRoutes(api, sim), { prefix: '/v1' });
    registerPageRoutes(app, sim);
    registerActionRoutes(app, sim);
  };
}
