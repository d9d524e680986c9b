import type { FastifyInstance } from 'fastify';
import { header, rawBody, sendJson } from '../../reply.js';
import { faultsFor, REGISTRATION_5XX_TEXT, registrationFault } from '../../faults.js';
import { WP_HEADER } from '../wire.js';
import type { WalletRouteContext } from '../context.js';
import { scenarioOfOrder } from '../faults.js';
import { newOrder, providerId, validateCreate, WpApiError } from '../orders.js';
import { notFound, sendApiError } from '../protocol.js';

/** Orders v2: create and get. */
export function registerOrderRoutes(app: FastifyInstance, ctx: WalletRouteContext): void {
  const { gw, clock, sim, publicBase, authorize } = ctx;
  const { orders } = sim;
  app.post('/v2/checkout/orders', async (req, reply) => {
    const token = await authorize(req, reply);
    if (!token) return reply;
    let body: unknown;
    try {
      body = JSON.parse(rawBody(req).toString('utf8'));
    } catch {
      body = undefined;
    }
    const valid = validateCreate(body);
    if (valid instanceof WpApiError) return sendApiError(reply, valid);
    const requestId = header(req, WP_HEADER.requestId);
    const orderId = providerId();
    const order = newOrder(valid, {
      orderId,
      now: clock.now(),
      apiBase: sim.apiBase(),
      publicBase: publicBase(),
    });
    const stored = await orders.create(
      orderId,
      {
        order,
        clientId: token.clientId,
        approval: null,
        captureRequestId: null,
        actionInFlight: false,
        captureEventPending: false,
      },
      requestId ? `${token.clientId}:${requestId}` : null,
    );
    // docs/testing.md: the first answer of a registration_* scenario is lost or a 500.
    const created = stored.data.order;
    const fault = await registrationFault(orders, created.id, scenarioOfOrder(created));
    if (fault === 'registration_5xx') {
      return sendJson(reply, 500, {
        name: 'INTERNAL_SERVER_ERROR',
        message: REGISTRATION_5XX_TEXT,
        debug_id: providerId(13).toLowerCase(),
      });
    }
    if (fault === 'registration_timeout') return faultsFor(gw).loseAnswer(reply);
    // A replayed request id answers with the original order, 200 instead of 201.
    return sendJson(reply, stored.created ? 201 : 200, stored.data.order);
  });

  app.get<{ Params: { id: string } }>('/v2/checkout/orders/:id', async (req, reply) => {
    const token = await authorize(req, reply);
    if (!token) return reply;
    const found = await orders.get(req.params.id);
    if (!found || found.clientId !== token.clientId) {
      return sendApiError(reply, notFound(req.params.id));
    }
    return sendJson(reply, 200, found.order);
  });
}
