import type { FastifyInstance } from 'fastify';
import { header, sendJson } from '../../reply.js';
import { WP_HEADER } from '../wire.js';
import type { WalletRouteContext } from '../context.js';
import { apiError, newCapture, orderCapture, providerTime, type WpApiError } from '../orders.js';
import { notFound, sendApiError } from '../protocol.js';

/** Orders v2 capture: POST /v2/checkout/orders/<id>/capture (an approved order, once). */
export function registerCaptureRoutes(app: FastifyInstance, ctx: WalletRouteContext): void {
  const { gw, clock, sim, authorize, deliverCapture } = ctx;
  const { orders } = sim;
  app.post<{ Params: { id: string } }>('/v2/checkout/orders/:id/capture', async (req, reply) => {
    const token = await authorize(req, reply);
    if (!token) return reply;
    const id = req.params.id;
    const requestId = header(req, WP_HEADER.requestId) ?? null;
    const now = clock.now();
    let refusal = null as WpApiError | null;
    let replay = false;
    let sendNow = false;
    const updated = await orders.update(id, (o) => {
      if (o.clientId !== token.clientId) {
        refusal = notFound(id);
        return null;
      }
      const status = o.order.status;
      if (status === 'COMPLETED') {
        if (requestId && requestId === o.captureRequestId) replay = true;
        else {
          refusal = apiError(422, {
            issue: 'ORDER_ALREADY_CAPTURED',
            description:
              "Order already captured. If 'intent=CAPTURE' only one capture per order is allowed.",
          });
        }
        return null;
      }
      if (status !== 'APPROVED') {
        refusal = apiError(422, {
          issue: status === 'VOIDED' ? 'ORDER_VOIDED' : 'ORDER_NOT_APPROVED',
          description:
            status === 'VOIDED'
              ? 'The order was voided and can no longer be captured.'
              : 'Payer has not yet approved the Order for payment.',
        });
        return null;
      }
      const capture = newCapture(o.order, o.approval === 'fail', now);
      const [unit, ...rest] = o.order.purchase_units;
      if (!unit) return null;
      // Captured during a buyer action: that action sends the capture's event after the
      // gateway has answered the approval; otherwise it is sent from here.
      sendNow = !o.actionInFlight;
      return {
        ...o,
        order: {
          ...o.order,
          status: 'COMPLETED',
          update_time: providerTime(now),
          purchase_units: [{ ...unit, payments: { captures: [capture] } }, ...rest],
        },
        captureRequestId: requestId,
        captureEventPending: !sendNow,
      };
    });
    if (!updated) return sendApiError(reply, notFound(id));
    if (refusal) return sendApiError(reply, refusal);
    if (replay) return sendJson(reply, 200, updated.order);
    const capture = orderCapture(updated.order);
    if (sendNow && capture) {
      const order = updated.order;
      setTimeout(() => {
        deliverCapture(order, capture).catch((err: unknown) =>
          gw.log.warn({ err, order_id: order.id }, 'wallet_psp simulator: capture event failed'),
        );
      }, 10);
    }
    return sendJson(reply, 201, updated.order);
  });
}
