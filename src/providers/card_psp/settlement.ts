/**
 * card_psp's record for reconciliation (docs/providers/card_psp.md#reconciliation): its
 * orders (GET /v1/orders/) and refunds (GET /v1/refunds/), newest first, 100 a page, read
 * until the window's start. The lists have no date filter, so the reading stops at the first
 * item older than the window.
 */
import type { ProviderMovementStatus } from '../../domain/reconciliation.js';
import { ProviderError, type ProviderContext, type ProviderMovement } from '../types.js';
import { getJson } from './client.js';
import type { ListResource, Order, Refund } from './wire.js';

const PAGE_SIZE = 100;
/** A runaway paging loop stops here (a million items). */
const MAX_PAGES = 10_000;

function unreadable(what: string): ProviderError {
  return new ProviderError('indeterminate', `card_psp ${what} list answer unreadable`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function time(v: unknown, what: string): Date {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) throw unreadable(what);
  return new Date(t);
}

/** Every item created in [since, until), reading pages newest first until one is older. */
async function listSince<T extends { created_at?: string }>(
  ctx: ProviderContext,
  path: string,
  since: Date,
  until: Date,
  what: string,
): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const q = new URLSearchParams({
      page: String(page),
      limit: String(PAGE_SIZE),
      sorting: '-created_at',
    });
    const body = (await getJson(ctx, `${path}?${q.toString()}`)) as Partial<ListResource<T>>;
    if (!isObject(body) || !Array.isArray(body.items) || !isObject(body.pagination)) {
      throw unreadable(what);
    }
    let older = false;
    for (const item of body.items) {
      const at = time(item.created_at, what);
      if (at < since) older = true;
      else if (at < until) out.push(item);
    }
    if (older || page >= body.pagination.max_page || body.items.length === 0) break;
  }
  return out;
}

const paymentIdOf = (metadata: unknown): string | undefined =>
  isObject(metadata) && typeof metadata.payment_id === 'string' ? metadata.payment_id : undefined;

function orderMovement(o: Order): ProviderMovement {
  const status: ProviderMovementStatus = o.status === 'pending' ? 'pending' : 'completed';
  const paymentId = paymentIdOf(o.metadata);
  const renewal = o.billing_reason === 'subscription_cycle';
  return {
    type: 'charge',
    providerRef: o.id,
    // A renewal is its own payment, known by its order id; its metadata names the first one.
    ...(paymentId && !renewal ? { paymentId } : {}),
    providerPaymentRef: renewal ? o.id : (o.checkout_id ?? o.id),
    status,
    currency: o.currency.toUpperCase(),
    amountMinor: o.total_amount,
    feeMinor: typeof o.platform_fee_amount === 'number' ? o.platform_fee_amount : null,
    occurredAt: time(o.created_at, 'order'),
  };
}

const REFUND_STATUS: Record<string, ProviderMovementStatus> = {
  succeeded: 'completed',
  pending: 'pending',
  failed: 'failed',
  canceled: 'failed',
};

export async function listMovements(
  ctx: ProviderContext,
  since: Date,
  until: Date,
): Promise<ProviderMovement[]> {
  const orders = await listSince<Order>(ctx, '/v1/orders/', since, until, 'order');
  const refunds = await listSince<Refund>(ctx, '/v1/refunds/', since, until, 'refund');
  const out = orders.map(orderMovement);
  // A refund names its order; the order (maybe of an earlier day) names the payment.
  const known = new Map(out.map((m) => [m.providerRef, m]));
  for (const r of refunds) {
    let order = known.get(r.order_id);
    if (!order) {
      const o = (await getJson(ctx, `/v1/orders/${encodeURIComponent(r.order_id)}`)) as Order;
      if (!isObject(o) || typeof o.id !== 'string') throw unreadable('order');
      order = orderMovement(o);
      known.set(o.id, order);
    }
    out.push({
      type: 'refund',
      providerRef: r.id,
      ...(order.paymentId ? { paymentId: order.paymentId } : {}),
      ...(order.providerPaymentRef ? { providerPaymentRef: order.providerPaymentRef } : {}),
      status: REFUND_STATUS[r.status] ?? 'failed',
      currency: r.currency.toUpperCase(),
      amountMinor: -(r.amount + (r.tax_amount ?? 0)),
      feeMinor: null,
      occurredAt: time(r.created_at, 'refund'),
    });
  }
  return out;
}
