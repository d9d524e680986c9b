import type { FastifyInstance } from 'fastify';
import { deliverToGateway, replyToAction, type ActionResult } from '../../common.js';
import { faultsFor } from '../../faults.js';
import { applyAction, Conflict, isAction } from '../actions.js';
import { CHECKOUT_TTL_MS, type CardPspSim } from '../context.js';
import { buildEvents, type CardPspEventBody } from '../events.js';
import { staleCheckout, scenarioOfCheckout } from '../faults.js';
import { wireCheckout, type SimCheckout } from '../objects.js';
import { iso, text } from '../protocol.js';
import { signCardPspEvent } from '../signing.js';

/** The buyer's scripted actions and the subscription's: POST /payments/<checkout id>/<action>. */
export function registerActionRoutes(app: FastifyInstance, sim: CardPspSim): void {
  const { gw, clock, checkouts, subscriptions, credentials, pageUrl, context } = sim;
  app.post<{ Params: { ref: string; action: string } }>(
    '/payments/:ref/:action',
    async (req, reply) => {
      const { ref, action } = req.params;
      const existing = await checkouts.get(ref);
      if (!existing) return text(reply, 404, 'unknown reference');
      if (!isAction(action)) return text(reply, 404, 'unknown action');
      const nowMs = clock.now();
      let after: SimCheckout | null;
      try {
        after = await checkouts.update(ref, (c) => applyAction(action, c, nowMs));
      } catch (err) {
        if (err instanceof Conflict) return text(reply, 409, err.message);
        throw err;
      }
      if (!after) return text(reply, 404, 'unknown reference');
      if (action === 'pay' && after.subscription) {
        await subscriptions.create(after.subscription.id, { checkout_id: after.id });
      }
      const secret = credentials.webhookSecret;
      const send = (event: CardPspEventBody) => () => {
        const body = JSON.stringify(event);
        // Signature time is wall time: the gateway checks it against its own clock.
        return deliverToGateway(gw, 'card_psp', signCardPspEvent(secret, body), body);
      };
      // docs/testing.md: the checkout's test_scenario decides how the events go out.
      const stale = staleCheckout(action, after, CHECKOUT_TTL_MS);
      const staleEvent: CardPspEventBody | null = stale && {
        type: 'checkout.updated',
        timestamp: iso(nowMs),
        data: { ...wireCheckout(stale, context(nowMs)) },
      };
      const result: ActionResult = await faultsFor(gw).deliver(
        scenarioOfCheckout(after),
        buildEvents(action, after, context(nowMs)).map(send),
        staleEvent ? send(staleEvent) : undefined,
      );
      return replyToAction(req.headers.accept, reply, result, {
        pageUrl: pageUrl(after.id),
        returnUrl: after.success_url || undefined,
      });
    },
  );
}
