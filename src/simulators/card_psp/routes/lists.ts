/**
 * The card_psp simulator's order and refund lists (Polar's GET /v1/orders/ and
 * GET /v1/refunds/, ListResource pages sorted by created_at), built from its checkouts at each
 * call, with reconciliation_drift applied (simulators/drift.ts); and GET /v1/orders/{id}.
 */
import type { FastifyInstance } from 'fastify';
import { listCardCheckoutsWithOrders } from '../../db/reads.js';
import { DRIFT_AMOUNT_MINOR, drifts } from '../../drift.js';
import type { CardPspSim } from '../context.js';
import { scenarioOfCheckout } from '../faults.js';
import { derivedId, wireOrder, type SimCheckout, type SimContext } from '../objects.js';
import { apiError } from '../protocol.js';

type WireOrder = ReturnType<typeof wireOrder>;

interface Listed {
  created_at: string;
  id: string;
}

/** Every order the provider holds, the drift of drifting checkouts applied. */
function ordersOf(c: SimCheckout, ctx: SimContext): WireOrder[] {
  const all = [c.order, ...c.renewals].flatMap((o) => (o ? [wireOrder(c, o, ctx)] : []));
  if (!drifts(scenarioOfCheckout(c)) || !c.order) return all;
  const [first, ...rest] = all as [WireOrder, ...WireOrder[]];
  const up = (n: number) => n + DRIFT_AMOUNT_MINOR;
  const changed = {
    ...first,
    subtotal_amount: up(first.subtotal_amount),
    net_amount: up(first.net_amount),
    total_amount: up(first.total_amount),
  };
  const unknown = {
    ...first,
    id: derivedId(`drift:${first.id}`),
    checkout_id: null,
    subscription_id: null,
    subscription: null,
    metadata: {},
    billing_reason: 'purchase' as const,
    refunded_amount: 0,
    status: 'paid' as const,
  };
  return [changed, unknown, ...rest];
}

function refundsOf(c: SimCheckout, ctx: SimContext) {
  // reconciliation_drift: the refunds are left out of the report.
  if (drifts(scenarioOfCheckout(c))) return [];
  return [c.order, ...c.renewals].flatMap((o) => {
    if (!o || o.refunded_amount === 0) return [];
    const at = o.refunded_at ?? o.created_at;
    return [
      {
        created_at: at,
        modified_at: null,
        id: derivedId(`refund:${o.id}`),
        metadata: {},
        status: 'succeeded',
        reason: 'customer_request',
        amount: o.refunded_amount,
        tax_amount: 0,
        currency: c.currency,
        organization_id: ctx.organizationId,
        order_id: o.id,
        subscription_id: c.subscription?.id ?? null,
        customer_id: c.customer_id,
        revoke_benefits: false,
        dispute: null,
      },
    ];
  });
}

/** Polar's paging: page (from 1) and limit (1..100), newest first unless sorting says created_at. */
function page<T extends Listed>(items: T[], query: Record<string, string | undefined>) {
  const limit = Math.min(Math.max(Number(query.limit ?? 10) || 10, 1), 100);
  const pageNo = Math.max(Number(query.page ?? 1) || 1, 1);
  const ascending = query.sorting === 'created_at';
  const sorted = items.sort((a, b) => {
    const c = a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
    return ascending ? c : -c;
  });
  return {
    items: sorted.slice((pageNo - 1) * limit, pageNo * limit),
    pagination: {
      total_count: items.length,
      max_page: Math.max(1, Math.ceil(items.length / limit)),
    },
  };
}

export function registerListRoutes(app: FastifyInstance, sim: CardPspSim): void {
  const { clock, context, gw } = sim;
  const all = async () => {
    const ctx = context(clock.now());
    const checkouts = await listCardCheckoutsWithOrders<SimCheckout>(gw.pool);
    return { ctx, checkouts };
  };
  const list = (path: string, pick: (c: SimCheckout, ctx: SimContext) => Listed[]) => {
    const handler = async (req: { query: unknown }, reply: import('fastify').FastifyReply) => {
      const { ctx, checkouts } = await all();
      const body = page(
        checkouts.flatMap((c) => pick(c, ctx)),
        req.query as Record<string, string | undefined>,
      );
      return reply.code(200).type('application/json').send(JSON.stringify(body));
    };
    app.get(path, handler);
    app.get(`${path}/`, handler);
  };
  list('/orders', ordersOf);
  list('/refunds', refundsOf);

  app.get<{ Params: { id: string } }>('/orders/:id', async (req, reply) => {
    const { ctx, checkouts } = await all();
    const order = checkouts.flatMap((c) => ordersOf(c, ctx)).find((o) => o.id === req.params.id);
    if (!order) return apiError(reply, 404, 'ResourceNotFound', 'Not found');
    return reply.code(200).type('application/json').send(JSON.stringify(order));
  });
}
