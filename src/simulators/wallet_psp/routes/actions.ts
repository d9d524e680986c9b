import type { FastifyInstance } from 'fastify';
import { sendText } from '../../reply.js';
import { replyToAction, SIM_ACTIONS, type ActionResult } from '../../common.js';
import { faultsFor } from '../../faults.js';
import type { WpOrder } from '../wire.js';
import type { WalletRouteContext } from '../context.js';
import { scenarioOfOrder } from '../faults.js';
import { awaitsPayer, orderCapture, providerId, providerTime, type SimOrder } from '../orders.js';

type SimAction = (typeof SIM_ACTIONS)[number];

function isSimAction(a: string): a is SimAction {
  return (SIM_ACTIONS as readonly string[]).includes(a);
}

/** The buyer's scripted actions: POST /payments/<order id>/<action> (docs/api.md#test-mode). */
export function registerActionRoutes(app: FastifyInstance, ctx: WalletRouteContext): void {
  const { gw, clock, sim, pageUrl, deliver, deliverCapture } = ctx;
  const { orders } = sim;
  app.post<{ Params: { ref: string; action: string } }>(
    '/payments/:ref/:action',
    async (req, reply) => {
      const { ref, action } = req.params;
      if (!isSimAction(action)) return sendText(reply, 404, 'unknown action');
      const now = clock.now();
      let refusal = null as string | null;
      const updated = await orders.update(ref, (o) => {
        const status = o.order.status;
        const base = { ...o.order, update_time: providerTime(now) };
        if (action === 'pay' || action === 'fail') {
          if (!awaitsPayer(o.order)) {
            refusal = `cannot ${action}: order ${ref} is ${status}, not CREATED or PAYER_ACTION_REQUIRED`;
            return null;
          }
          return {
            ...o,
            approval: action,
            actionInFlight: true,
            order: {
              ...base,
              status: 'APPROVED',
              payer: {
                payer_id: providerId(13),
                ...(o.order.payment_source?.paypal?.email_address
                  ? { email_address: o.order.payment_source.paypal.email_address }
                  : {}),
              },
            },
          };
        }
        if ((!awaitsPayer(o.order) && status !== 'APPROVED') || o.actionInFlight) {
          refusal = `cannot ${action}: order ${ref} is ${status}${o.actionInFlight ? ' and being captured' : ''}`;
          return null;
        }
        return { ...o, order: { ...base, status: 'VOIDED' } };
      });
      if (!updated) return sendText(reply, 404, 'unknown reference');
      if (refusal) return sendText(reply, 409, refusal);
      const returnUrl = updated.order.payment_source?.paypal?.experience_context?.return_url;
      const back = { pageUrl: pageUrl(ref), ...(returnUrl ? { returnUrl } : {}) };

      let result: ActionResult;
      try {
        if (action === 'cancel' || action === 'expire') {
          const summary =
            action === 'cancel'
              ? 'Checkout Order voided: canceled by the payer'
              : 'Checkout Order voided: expired before it was captured';
          result = await faultsFor(gw).deliver(scenarioOfOrder(updated.order), () =>
            deliver('CHECKOUT.ORDER.VOIDED', 'checkout-order', updated.order, summary),
          );
        } else {
          result = await approveAndSettle(ref, updated.order);
        }
      } catch (err) {
        gw.log.warn({ err, order_id: ref }, 'wallet_psp simulator: gateway unreachable');
        return sendText(reply, 502, 'simulator could not reach the gateway');
      }
      return replyToAction(req.headers.accept, reply, result, back);
    },
  );

  /**
   * The wallet flow: the approval goes to the gateway, which captures while handling it;
   * then the capture's own event (COMPLETED, or DENIED for Fail) settles the payment. The
   * answer reported is that of the last event sent.
   */
  async function approveAndSettle(ref: string, order: WpOrder): Promise<ActionResult> {
    let approved: ActionResult;
    let claimed: SimOrder | null = null;
    try {
      approved = await faultsFor(gw).deliver(scenarioOfOrder(order), () =>
        deliver(
          'CHECKOUT.ORDER.APPROVED',
          'checkout-order',
          order,
          'An order has been approved by buyer',
        ),
      );
    } finally {
      await orders.update(ref, (o) => {
        if (o.captureEventPending && orderCapture(o.order)) {
          claimed = o;
          return { ...o, actionInFlight: false, captureEventPending: false };
        }
        return { ...o, actionInFlight: false };
      });
    }
    const settled = claimed as SimOrder | null;
    const capture = settled ? orderCapture(settled.order) : undefined;
    if (!settled || !capture) return approved;
    return deliverCapture(settled.order, capture);
  }
}
