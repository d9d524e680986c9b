import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { SimulatorHost } from '../host.js';
import { SimStore, type SimClock } from '../common.js';
import { cardPspCredentials } from '../credentials.js';
import { derivedId, type SimCheckout, type SimContext } from './objects.js';

/** How long an unpaid checkout stays open (Polar's default session lifetime is an hour). */
export const CHECKOUT_TTL_MS = 60 * 60_000;

/** Maps a subscription id to its checkout, for GET /v1/subscriptions/:id. */
export interface SimSubscriptionIndex {
  checkout_id: string;
}

/** What every card_psp module works with: the host, the clock, the stores and the credentials. */
export interface CardPspSim {
  gw: SimulatorHost;
  clock: SimClock;
  checkouts: SimStore<SimCheckout>;
  subscriptions: SimStore<SimSubscriptionIndex>;
  credentials: ReturnType<typeof cardPspCredentials>;
  pageUrl(id: string): string;
  context(nowMs: number): SimContext;
  authorized(req: FastifyRequest): boolean;
}

export function cardSimFor(gw: SimulatorHost, clock: SimClock): CardPspSim {
  const checkouts = new SimStore<SimCheckout>(gw.pool, 'card_psp', 'checkout');
  const subscriptions = new SimStore<SimSubscriptionIndex>(gw.pool, 'card_psp', 'subscription');
  // The test-mode credentials this provider issued (derived from the master key).
  const credentials = cardPspCredentials(gw.config.masterKey);
  const accessToken = Buffer.from(credentials.accessToken, 'utf8');
  const pageUrl = (id: string) => `${gw.urls.public}/sim/card_psp/checkout/${id}`;
  // One organization per deployment, stable across restarts (derived from the credentials).
  const organizationId = derivedId(`organization:${credentials.accessToken}`);
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
  return {
    gw,
    clock,
    checkouts,
    subscriptions,
    credentials,
    pageUrl,
    context,
    authorized,
  };
}
