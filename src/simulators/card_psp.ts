/**
 * card_psp simulator (docs/api.md#test-mode): a Polar-like checkout API under /sim/card_psp with hosted checkout
 * pages, orders, one monthly subscription per paid checkout, provider-side refunds, and
 * Standard Webhooks-signed events posted to /webhooks/card_psp. State lives in sim_objects.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorHost } from './host.js';
import { rawBody } from './reply.js';
import type { WireMetadata } from '../providers/card_psp/wire.js';
import {
  derivedId,
  effectiveStatus,
  wireCheckout,
  wireOrder,
  wireSubscription,
  type SimCheckout,
  type SimContext,
} from './card_psp/objects.js';
import { simulatorEndpoint } from '../providers/testMode.js';
import { scenarioOfCheckout, staleCheckout } from './card_psp/faults.js';
import { faultsFor, REGISTRATION_5XX_TEXT, registrationFault } from './faults.js';
import {
  SIM_ACTIONS,
  SimStore,
  deliverToGateway,
  renderCheckoutPage,
  replyToAction,
  type ActionResult,
  type SimClock,
} from './common.js';

export const CARD_PSP_SUBSCRIPTION_ACTIONS = [
  'renew',
  'refund',
  'subscription_cancel',
  'subscription_revoke',
] as const;
const ACTIONS = [...SIM_ACTIONS, ...CARD_PSP_SUBSCRIPTION_ACTIONS] as const;
type Action = (typeof ACTIONS)[number];

/** How long an unpaid checkout stays open (Polar's default session lifetime is an hour). */
export const CHECKOUT_TTL_MS = 60 * 60_000;
/** Used when a checkout names a product without an ad-hoc price: $10.00 a month. */
const DEFAULT_PRICE = { amount: 1000, currency: 'usd' };
const SUPPORTED_CURRENCIES = ['usd', 'eur', 'gbp'];
export const DECLINE_TEXT = 'Your card was declined.';

/** Maps a subscription id to its checkout, for GET /v1/subscriptions/:id. */
interface SimSubscriptionIndex {
  checkout_id: string;
}

class Conflict extends Error {}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function addMonth(isoTime: string): string {
  const d = new Date(isoTime);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString();
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function validationError(reply: FastifyReply, loc: (string | number)[], msg: string, type: string) {
  return reply
    .code(422)
    .type('application/json')
    .send(JSON.stringify({ error: 'RequestValidationError', detail: [{ loc, msg, type }] }));
}

function apiError(reply: FastifyReply, status: number, error: string, detail: string) {
  return reply.code(status).type('application/json').send(JSON.stringify({ error, detail }));
}

function text(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type('text/plain; charset=utf-8').send(body);
}

/**
 * The simulator's own Standard Webhooks signer, written apart from the adapter's verifier so
 * that a test of one against the other means something. docs/providers/card_psp.md#webhooks-standard-webhooks: the key is the secret string's
 * UTF-8 bytes as issued.
 */
export function signCardPspEvent(
  secret: string,
  body: string,
  nowMs: number = Date.now(),
): Record<string, string> {
  const id = `msg_${randomBytes(12).toString('hex')}`;
  const timestamp = String(Math.floor(nowMs / 1000));
  const mac = createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}

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

function isAction(v: string): v is Action {
  return (ACTIONS as readonly string[]).includes(v);
}

/** Actions the hosted page offers in a state. */
function pageActions(c: SimCheckout, nowMs: number): readonly string[] {
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

function formatAmount(minor: number, currency: string): string {
  return `${(minor / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

export function cardPspSimulator(gw: SimulatorHost, clock: SimClock) {
  return async (app: FastifyInstance) => {
    const checkouts = new SimStore<SimCheckout>(gw.pool, 'card_psp', 'checkout');
    const subscriptions = new SimStore<SimSubscriptionIndex>(gw.pool, 'card_psp', 'subscription');
    // The same test-mode credentials the adapter uses (derived from the master key).
    const endpoint = simulatorEndpoint('card_psp', gw.config.masterKey, '');
    const accessToken = Buffer.from(endpoint.credentials.accessToken ?? '', 'utf8');
    const pageUrl = (id: string) => `${gw.urls.public}/sim/card_psp/checkout/${id}`;
    // One organization per deployment, stable across restarts (derived from the credentials).
    const organizationId = derivedId(`organization:${endpoint.credentials.accessToken ?? ''}`);
    const context = (nowMs: number): SimContext => ({
      organizationId,
      checkoutUrl: pageUrl,
      nowMs,
    });

    const authorized = (req: FastifyRequest): boolean => {
      const h = req.headers.authorization ?? '';
      if (!h.startsWith('Bearer ')) return false;
      const given = Buffer.from(h.slice('Bearer '.length), 'utf8');
      return given.length === accessToken.length && timingSafeEqual(given, accessToken);
    };

    // The provider's API: Bearer access token on every /v1 call.
    await app.register(
      async (api) => {
        api.addHook('onRequest', async (req, reply) => {
          if (!authorized(req)) {
            reply.header('www-authenticate', 'Bearer error="invalid_token"');
            return reply
              .code(401)
              .type('application/json')
              .send(
                JSON.stringify({
                  error: 'invalid_token',
                  error_description:
                    'The access token provided is expired, revoked, malformed, or invalid for other reasons.',
                }),
              );
          }
        });

        const createHandler = async (req: FastifyRequest, reply: FastifyReply) => {
          let body: unknown;
          try {
            body = JSON.parse(rawBody(req).toString('utf8'));
          } catch {
            return validationError(reply, ['body'], 'JSON decode error', 'json_invalid');
          }
          if (!isObj(body))
            return validationError(reply, ['body'], 'Input should be an object', 'model_type');
          const products = Array.isArray(body.products) ? body.products : [];
          const productId = products[0];
          if (typeof productId !== 'string' || productId === '') {
            return validationError(
              reply,
              ['body', 'products'],
              'products: at least one product id is required',
              'too_short',
            );
          }
          let price = DEFAULT_PRICE;
          const prices = isObj(body.prices) ? body.prices[productId] : undefined;
          if (prices !== undefined) {
            const p: unknown = Array.isArray(prices) ? prices[0] : undefined;
            if (
              !isObj(p) ||
              !Number.isSafeInteger(p.price_amount) ||
              (p.price_amount as number) <= 0 ||
              typeof p.price_currency !== 'string' ||
              !SUPPORTED_CURRENCIES.includes(p.price_currency)
            ) {
              return validationError(
                reply,
                ['body', 'prices', productId],
                'prices: a fixed price_amount (positive cents) and price_currency usd, eur or gbp are required',
                'value_error',
              );
            }
            price = { amount: p.price_amount as number, currency: p.price_currency };
          }
          const successUrl = typeof body.success_url === 'string' ? body.success_url : '';
          const metadata: WireMetadata = {};
          if (isObj(body.metadata)) {
            for (const [k, v] of Object.entries(body.metadata)) {
              if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
                metadata[k] = v;
              }
            }
          }
          // A retried create returns the original checkout: keyed by the Idempotency-Key
          // header, else by metadata.payment_id (one checkout per gateway payment).
          const headerKey = req.headers['idempotency-key'];
          const key =
            typeof headerKey === 'string' && headerKey !== ''
              ? `key:${headerKey}`
              : typeof metadata.payment_id === 'string' && metadata.payment_id !== ''
                ? `payment:${metadata.payment_id}`
                : null;
          const nowMs = clock.now();
          const id = randomUUID();
          const checkout: SimCheckout = {
            id,
            status: 'open',
            created_at: iso(nowMs),
            modified_at: null,
            expires_at: iso(nowMs + CHECKOUT_TTL_MS),
            success_url: successUrl,
            product_id: productId,
            amount: price.amount,
            currency: price.currency,
            customer_email: typeof body.customer_email === 'string' ? body.customer_email : null,
            external_customer_id:
              typeof body.external_customer_id === 'string' ? body.external_customer_id : null,
            customer_id: randomUUID(),
            client_secret: `polar_c_${randomBytes(24).toString('base64url')}`,
            price_id: randomUUID(),
            metadata,
            failure_reason: null,
            order: null,
            renewals: [],
            subscription: null,
          };
          const stored = await checkouts.create(id, checkout, key);
          // docs/testing.md: the first answer of a registration_* scenario is lost or a 500.
          const scenario = scenarioOfCheckout(stored.data);
          const fault = await registrationFault(checkouts, stored.data.id, scenario);
          if (fault === 'registration_5xx') {
            return apiError(reply, 500, 'InternalServerError', REGISTRATION_5XX_TEXT);
          }
          if (fault === 'registration_timeout') return faultsFor(gw).loseAnswer(reply);
          const wire = wireCheckout(stored.data, context(clock.now()));
          return reply.code(201).type('application/json').send(JSON.stringify(wire));
        };
        api.post('/checkouts/', createHandler);
        api.post('/checkouts', createHandler);

        api.get<{ Params: { id: string } }>('/checkouts/:id', async (req, reply) => {
          const c = await checkouts.get(req.params.id);
          if (!c) return apiError(reply, 404, 'ResourceNotFound', 'Not found');
          const wire = wireCheckout(c, context(clock.now()));
          return reply.code(200).type('application/json').send(JSON.stringify(wire));
        });

        api.get<{ Params: { id: string } }>('/subscriptions/:id', async (req, reply) => {
          const idx = await subscriptions.get(req.params.id);
          const c = idx ? await checkouts.get(idx.checkout_id) : null;
          if (!c?.subscription) return apiError(reply, 404, 'ResourceNotFound', 'Not found');
          const wire = wireSubscription(c, c.subscription, context(clock.now()));
          return reply.code(200).type('application/json').send(JSON.stringify(wire));
        });
      },
      { prefix: '/v1' },
    );

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
        details.push(['Refunded', formatAmount(c.order.refunded_amount, c.currency)]);
      }
      if (c.failure_reason) details.push(['Failure', c.failure_reason]);
      return renderCheckoutPage(reply, {
        provider: 'card_psp',
        title: 'Checkout',
        reference: c.id,
        amountText: formatAmount(c.amount, c.currency),
        status: effectiveStatus(c, nowMs),
        details,
        actionBase: `payments/${c.id}`,
        actions: pageActions(c, nowMs),
        returnUrl: c.success_url || undefined,
      });
    });

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
        const secret = endpoint.webhookSecret;
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
  };
}
