/**
 * card_psp adapter: a Polar-style merchant-of-record checkout (docs/providers/card_psp.md).
 */
import {
  ProviderError,
  type InboundAction,
  type PaymentProvider,
  type ProviderContext,
  type RegisterPaymentInput,
  type RegisteredPayment,
} from '../types.js';
import { testScenarioFor } from '../../domain/testScenarios.js';
import { createCheckout, getCheckout, getSubscription } from './client.js';
import { checkoutStatusAction, enrichment } from './mapping.js';
import { listMovements } from './settlement.js';
import { parseCardPspWebhook, verifyStandardWebhook } from './webhook.js';
import { CHECKOUT_STATUSES, type CheckoutCreate, type CheckoutStatus } from './wire.js';

function isCheckoutStatus(v: unknown): v is CheckoutStatus {
  return typeof v === 'string' && (CHECKOUT_STATUSES as readonly string[]).includes(v);
}

export const cardPsp: PaymentProvider = {
  slug: 'card_psp',

  register: registerCheckout,

  /**
   * Polar finds checkouts by their own id only (no lookup by our metadata): the create is
   * sent again under the same Idempotency-Key, which returns the checkout if one was made
   * (else makes it; the checkout then lapses unpaid at its expiry like any other, and the
   * reconciler records that). A refusal means the first create was refused too.
   */
  async findRegistration(ctx, input) {
    try {
      return { kind: 'found', registration: await registerCheckout(ctx, input) };
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'rejected') {
        return { kind: 'none', providerText: err.providerText };
      }
      throw err;
    }
  },

  async verifyWebhook(endpoint, headers, rawBody, nowMs) {
    return verifyStandardWebhook(endpoint.webhookSecret, headers, rawBody, nowMs);
  },

  parseWebhook(_headers, rawBody) {
    return parseCardPspWebhook(rawBody);
  },

  async fetchStatus(ctx, ref) {
    // Without a checkout id there is nothing to ask about; findRegistration recovers it.
    if (!ref.providerRef) return { kind: 'none' };
    return checkoutAction(ctx, ref.providerRef);
  },

  listMovements,
};

async function registerCheckout(
  ctx: ProviderContext,
  input: RegisterPaymentInput,
): Promise<RegisteredPayment> {
  const product = input.metadata.card_psp_product_id;
  const productId = typeof product === 'string' && product !== '' ? product : null;
  // Without a product the checkout is still sent: the provider's own refusal is the error
  // the app sees (docs/api.md#create-a-payment: the card provider needs card_psp_product_id).
  const body: CheckoutCreate = {
    products: productId ? [productId] : [],
    allow_discount_codes: false,
    allow_trial: false,
    external_customer_id: input.externalUserId,
    success_url: input.returnUrl,
    metadata: { payment_id: input.paymentId },
  };
  const scenario = testScenarioFor(ctx.mode, input.metadata);
  if (scenario) body.metadata.test_scenario = scenario;
  if (productId) {
    body.prices = {
      [productId]: [
        {
          amount_type: 'fixed',
          price_amount: input.amountMinor,
          price_currency: input.currency.toLowerCase(),
        },
      ],
    };
  }
  if (input.email) body.customer_email = input.email;
  const checkout = await createCheckout(ctx, input.paymentId, body);
  const expires = checkout.expires_at ? new Date(checkout.expires_at) : undefined;
  return {
    providerRef: checkout.id,
    checkoutUrl: checkout.url,
    ...(expires && !Number.isNaN(expires.getTime()) ? { expiresAt: expires } : {}),
  };
}

async function checkoutAction(ctx: ProviderContext, checkoutId: string): Promise<InboundAction> {
  const checkout = await getCheckout(ctx, checkoutId);
  if (!isCheckoutStatus(checkout.status)) {
    throw new ProviderError('indeterminate', `card_psp checkout status ${String(checkout.status)}`);
  }
  let extra: Record<string, unknown> = {};
  if (checkout.status === 'succeeded') {
    const subId = checkout.subscription_id;
    const sub = subId ? await getSubscription(ctx, subId) : null;
    // The status change a poll observes is the one checkout.updated reports.
    extra = enrichment('checkout.updated', subId, sub?.current_period_end);
  }
  // Net of discounts, before tax: what the checkout charged for the payment.
  const net = checkout.net_amount ?? checkout.amount;
  const paid =
    typeof net === 'number' && checkout.currency
      ? { amountMinor: net, currency: checkout.currency.toUpperCase() }
      : null;
  return checkoutStatusAction(checkout.status, checkout.failure_reason, 'poll', {
    enrichment: extra,
    paid,
  });
}
