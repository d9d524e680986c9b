import type { Action } from './actions.js';
import {
  wireCheckout,
  wireOrder,
  wireSubscription,
  type SimCheckout,
  type SimContext,
} from './objects.js';
import { iso } from './protocol.js';

export interface CardPspEventBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Builds the events one action sends, in order, from the state after the action. */
export function buildEvents(action: Action, c: SimCheckout, ctx: SimContext): CardPspEventBody[] {
  const timestamp = iso(ctx.nowMs);
  const ev = (type: string, data: object): CardPspEventBody => ({
    type,
    timestamp,
    data: { ...data },
  });
  const checkoutEvent = () => ev('checkout.updated', wireCheckout(c, ctx));
  switch (action) {
    case 'pay':
      return c.order ? [checkoutEvent(), ev('order.paid', wireOrder(c, c.order, ctx))] : [];
    case 'fail':
    case 'cancel':
    case 'expire':
      return [checkoutEvent()];
    case 'renew': {
      const order = c.renewals[c.renewals.length - 1];
      return order ? [ev('order.paid', wireOrder(c, order, ctx))] : [];
    }
    case 'refund':
      return c.order ? [ev('order.refunded', wireOrder(c, c.order, ctx))] : [];
    case 'subscription_cancel':
      return c.subscription
        ? [ev('subscription.canceled', wireSubscription(c, c.subscription, ctx))]
        : [];
    case 'subscription_revoke':
      return c.subscription
        ? [ev('subscription.revoked', wireSubscription(c, c.subscription, ctx))]
        : [];
  }
}
