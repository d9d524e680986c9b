import { randomUUID } from 'node:crypto';
import { SIM_ACTIONS } from '../common.js';
import { effectiveStatus, type SimCheckout } from './objects.js';
import { iso } from './protocol.js';

export const CARD_PSP_SUBSCRIPTION_ACTIONS = [
  'renew',
  'refund',
  'subscription_cancel',
  'subscription_revoke',
] as const;
export const ACTIONS = [...SIM_ACTIONS, ...CARD_PSP_SUBSCRIPTION_ACTIONS] as const;
export type Action = (typeof ACTIONS)[number];

export const DECLINE_TEXT = 'Your card was declined.';

/** An action not allowed in the checkout's state (answered 409 with its message). */
export class Conflict extends Error {}

function addMonth(isoTime: string): string {
  const d = new Date(isoTime);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString();
}

/**
 * The state change of one action, or Conflict with the reason it is not allowed now (409).
 * Provider-side times come from the simulator clock.
 */
export function applyAction(action: Action, c: SimCheckout, nowMs: number): SimCheckout {
  const now = iso(nowMs);
  const status = effectiveStatus(c, nowMs);
  const next: SimCheckout = structuredClone(c);
  next.modified_at = now;
  const requireOpen = () => {
    if (status !== 'open') throw new Conflict(`checkout is ${status}, cannot ${action}`);
  };
  const requirePaid = () => {
    if (status !== 'succeeded' || !next.order || !next.subscription) {
      throw new Conflict(`checkout is ${status}, ${action} needs a paid checkout`);
    }
    return { order: next.order, sub: next.subscription };
  };
  switch (action) {
    case 'pay': {
      requireOpen();
      next.status = 'succeeded';
      next.subscription = {
        id: randomUUID(),
        status: 'active',
        current_period_start: now,
        current_period_end: addMonth(now),
        cancel_at_period_end: false,
        canceled_at: null,
        ended_at: null,
      };
      next.order = {
        id: randomUUID(),
        created_at: now,
        billing_reason: 'subscription_create',
        amount: c.amount,
        refunded_amount: 0,
      };
      return next;
    }
    case 'fail':
      requireOpen();
      next.status = 'failed';
      next.failure_reason = DECLINE_TEXT;
      return next;
    case 'cancel':
    case 'expire':
      // Polar has no "canceled" checkout: a buyer who leaves and a session that times out
      // both end as expired; expire also moves the expiry to now.
      requireOpen();
      next.status = 'expired';
      if (action === 'expire') next.expires_at = now;
      return next;
    case 'renew': {
      const { sub } = requirePaid();
      if (sub.status !== 'active') throw new Conflict('subscription is revoked, cannot renew');
      if (sub.cancel_at_period_end) {
        throw new Conflict('subscription is canceled, it ends at the current period end');
      }
      sub.current_period_start = sub.current_period_end;
      sub.current_period_end = addMonth(sub.current_period_end);
      next.renewals.push({
        id: randomUUID(),
        created_at: now,
        billing_reason: 'subscription_cycle',
        amount: c.amount,
        refunded_amount: 0,
      });
      return next;
    }
    case 'refund': {
      const { order } = requirePaid();
      if (order.refunded_amount > 0) throw new Conflict('order is already refunded');
      order.refunded_amount = order.amount;
      order.refunded_at = now;
      return next;
    }
    case 'subscription_cancel': {
      const { sub } = requirePaid();
      if (sub.status !== 'active') throw new Conflict('subscription is revoked');
      if (sub.cancel_at_period_end) throw new Conflict('subscription is already canceled');
      sub.cancel_at_period_end = true;
      sub.canceled_at = now;
      return next;
    }
    case 'subscription_revoke': {
      const { sub } = requirePaid();
      if (sub.status !== 'active') throw new Conflict('subscription is already revoked');
      sub.status = 'canceled';
      sub.canceled_at = sub.canceled_at ?? now;
      sub.ended_at = now;
      return next;
    }
  }
}

export function isAction(v: string): v is Action {
  return (ACTIONS as readonly string[]).includes(v);
}

/** Actions the hosted page offers in a state. */
export function pageActions(c: SimCheckout, nowMs: number): readonly string[] {
  const status = effectiveStatus(c, nowMs);
  if (status === 'open') return SIM_ACTIONS;
  if (status !== 'succeeded' || !c.subscription) return [];
  const sub = c.subscription;
  const out: string[] = [];
  if (sub.status === 'active' && !sub.cancel_at_period_end) out.push('renew');
  if (c.order && c.order.refunded_amount === 0) out.push('refund');
  if (sub.status === 'active' && !sub.cancel_at_period_end) out.push('subscription_cancel');
  if (sub.status === 'active') out.push('subscription_revoke');
  return out;
}
