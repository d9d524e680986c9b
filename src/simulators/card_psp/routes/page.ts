import type { FastifyInstance } from 'fastify';
import { currencyText, renderCheckoutPage } from '../../common.js';
import { pageActions } from '../actions.js';
import type { CardPspSim } from '../context.js';
import { effectiveStatus } from '../objects.js';
import { text } from '../protocol.js';

export function registerPageRoutes(app: FastifyInstance, sim: CardPspSim): void {
  const { clock, checkouts } = sim;
  // The hosted checkout page (no authentication, like the provider's).
  app.get<{ Params: { id: string } }>('/checkout/:id', async (req, reply) => {
    const c = await checkouts.get(req.params.id);
    if (!c) return text(reply, 404, 'unknown reference');
    const nowMs = clock.now();
    const details: [string, string][] = [['Product', c.product_id]];
    if (c.subscription) {
      details.push(['Subscription', `${c.subscription.id} (${c.subscription.status})`]);
      details.push(['Current period ends', c.subscription.current_period_end]);
      if (c.subscription.cancel_at_period_end) details.push(['Cancels at period end', 'yes']);
      if (c.renewals.length > 0) details.push(['Renewals', String(c.renewals.length)]);
    }
    if (c.order && c.order.refunded_amount > 0) {
      details.push(['Refunded', currencyText(c.order.refunded_amount, c.currency)]);
    }
    if (c.failure_reason) details.push(['Failure', c.failure_reason]);
    return renderCheckoutPage(reply, {
      provider: 'card_psp',
      title: `Pay ${currencyText(c.amount, c.currency)}`,
      reference: c.id,
      amountText: currencyText(c.amount, c.currency),
      status: effectiveStatus(c, nowMs),
      details,
      actionBase: `payments/${c.id}`,
      actions: pageActions(c, nowMs),
      returnUrl: c.success_url || undefined,
    });
  });
}
