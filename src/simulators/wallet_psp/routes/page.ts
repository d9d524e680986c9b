import type { FastifyInstance } from 'fastify';
import { sendText } from '../../reply.js';
import { renderCheckoutPage } from '../../common.js';
import type { WalletRouteContext } from '../context.js';
import { amountText, buyerStatusText } from '../orders.js';

/** The buyer's approval page: GET /checkoutnow?token=<order id>. */
export function registerPageRoutes(app: FastifyInstance, ctx: WalletRouteContext): void {
  const { sim } = ctx;
  const { orders } = sim;
  app.get<{ Querystring: { token?: string } }>('/checkoutnow', async (req, reply) => {
    const id = req.query.token ?? '';
    const found = id ? await orders.get(id) : null;
    if (!found) return sendText(reply, 404, 'unknown reference');
    const order = found.order;
    const unit = order.purchase_units[0];
    const details: [string, string][] = [];
    if (unit?.custom_id) details.push(['Merchant reference', unit.custom_id]);
    const email = order.payment_source?.paypal?.email_address;
    if (email) details.push(['Buyer', email]);
    const returnUrl = order.payment_source?.paypal?.experience_context?.return_url;
    return renderCheckoutPage(reply, {
      provider: 'wallet_psp',
      title: `Pay ${amountText(order)} with your wallet`,
      reference: order.id,
      amountText: amountText(order),
      status: buyerStatusText(order.status),
      details,
      actionBase: `payments/${order.id}`,
      ...(returnUrl ? { returnUrl } : {}),
    });
  });
}
