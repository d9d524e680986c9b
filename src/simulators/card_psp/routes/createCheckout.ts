import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawBody } from '../../reply.js';
import { faultsFor, REGISTRATION_5XX_TEXT, registrationFault } from '../../faults.js';
import { CHECKOUT_TTL_MS, type CardPspSim } from '../context.js';
import { scenarioOfCheckout } from '../faults.js';
import { wireCheckout, type Metadata, type SimCheckout } from '../objects.js';
import { apiError, isObj, iso, validationError } from '../protocol.js';

/** Used when a checkout names a product without an ad-hoc price: $10.00 a month. */
const DEFAULT_PRICE = { amount: 1000, currency: 'usd' };
const SUPPORTED_CURRENCIES = ['usd', 'eur', 'gbp'];

/** POST /v1/checkouts: a checkout for one product at a fixed price; a retry answers the original. */
export function createCheckoutHandler(sim: CardPspSim) {
  const { gw, clock, checkouts, context } = sim;
  return async (req: FastifyRequest, reply: FastifyReply) => {
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
    const metadata: Metadata = {};
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
      allow_discount_codes:
        typeof body.allow_discount_codes === 'boolean' ? body.allow_discount_codes : true,
      allow_trial: typeof body.allow_trial === 'boolean' ? body.allow_trial : true,
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
}
