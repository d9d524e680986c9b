import { testScenarioFor } from '../../domain/testScenarios.js';
import { minorToDecimal } from '../../domain/money.js';
import type {
  InboundAction,
  PaymentProvider,
  ProviderContext,
  ProviderPaymentRef,
  RegisterPaymentInput,
  RegisteredPayment,
  RegistrationLookup,
} from '../types.js';
import { ProviderError } from '../types.js';
import { apiCall, errorIssue, rejected } from './client.js';
import { orderAction } from './mapping.js';
import { refund } from './refund.js';
import { parseWebhook, verifyWebhook } from './webhook.js';
import { fetchBalances, listPayouts } from './reporting.js';
import { WP_CURRENCIES, type WpCreateOrderRequest, type WpOrder } from './wire.js';

function isOrder(v: unknown): v is WpOrder {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as WpOrder).id === 'string' &&
    typeof (v as WpOrder).status === 'string'
  );
}

function orderPath(orderId: string): string {
  return `/v2/checkout/orders/${encodeURIComponent(orderId)}`;
}

/**
 * POST /v2/checkout/orders under the PayPal-Request-Id of our payment id: a repeat returns
 * the original order with 200 instead of 201 (never two orders). `replayed` says which.
 */
async function createOrder(
  ctx: ProviderContext,
  input: RegisterPaymentInput,
): Promise<{ replayed: boolean; registration: RegisteredPayment }> {
  if (!(WP_CURRENCIES as readonly string[]).includes(input.currency)) {
    throw new ProviderError('rejected', `wallet_psp does not support currency ${input.currency}`);
  }
  const paypal: NonNullable<WpCreateOrderRequest['payment_source']>['paypal'] = {
    experience_context: { return_url: input.returnUrl, cancel_url: input.returnUrl },
  };
  if (input.email) paypal.email_address = input.email;
  const body: WpCreateOrderRequest = {
    intent: 'CAPTURE',
    purchase_units: [
      {
        reference_id: input.paymentId,
        custom_id: input.paymentId,
        amount: {
          currency_code: input.currency,
          value: minorToDecimal(input.amountMinor, input.currency),
        },
      },
    ],
    payment_source: { paypal },
  };
  const scenario = testScenarioFor(ctx.mode, input.metadata);
  if (scenario && body.purchase_units[0]) body.purchase_units[0].description = scenario;
  // The request id makes a retried create return the original order (never two orders).
  const res = await apiCall(ctx, 'POST', '/v2/checkout/orders', {
    body,
    requestId: input.paymentId,
  });
  if (res.status !== 200 && res.status !== 201) throw rejected(res);
  if (!isOrder(res.body)) {
    throw new ProviderError('indeterminate', 'wallet_psp answered an order without an id');
  }
  const order = res.body;
  const link = (order.links ?? []).find((l) => l.rel === 'payer-action' || l.rel === 'approve');
  if (!link) throw new ProviderError('rejected', `wallet_psp order ${order.id} has no payer link`);
  return {
    replayed: res.status === 200,
    registration: { providerRef: order.id, checkoutUrl: link.href },
  };
}

async function register(
  ctx: ProviderContext,
  input: RegisterPaymentInput,
): Promise<RegisteredPayment> {
  return (await createOrder(ctx, input)).registration;
}

/**
 * Orders are found by their own id only; the create sent again under the same request id
 * is the lookup by ours. A replay (200) is the order made before; a new order (201) means
 * there was none: it stays unapproved and its link reaches no buyer. A refusal means the
 * first create was refused too.
 */
async function findRegistration(
  ctx: ProviderContext,
  input: RegisterPaymentInput,
): Promise<RegistrationLookup> {
  try {
    const { replayed, registration } = await createOrder(ctx, input);
    if (replayed) return { kind: 'found', registration };
    return { kind: 'none', providerText: 'wallet_psp had no order for this payment' };
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'rejected') {
      return { kind: 'none', providerText: err.providerText };
    }
    throw err;
  }
}

async function fetchStatus(ctx: ProviderContext, ref: ProviderPaymentRef): Promise<InboundAction> {
  // Orders are found by id only; a create that never answered is retried by the payment
  // flow under the same request id, which returns the order if it exists.
  if (!ref.providerRef) return { kind: 'none' };
  const res = await apiCall(ctx, 'GET', orderPath(ref.providerRef));
  if (res.status !== 200) throw rejected(res);
  if (!isOrder(res.body)) throw new ProviderError('indeterminate', 'wallet_psp order unreadable');
  return orderAction(res.body);
}

async function capture(ctx: ProviderContext, ref: ProviderPaymentRef): Promise<void> {
  if (!ref.providerRef) throw new ProviderError('rejected', 'wallet_psp order id unknown');
  const res = await apiCall(ctx, 'POST', `${orderPath(ref.providerRef)}/capture`, {
    body: {},
    requestId: `capture-${ref.paymentId}`,
  });
  if (res.status === 200 || res.status === 201) return;
  // A capture made earlier (by another instance, or a lost answer) is the outcome we wanted;
  // its event settles the payment.
  if (res.status === 422 && errorIssue(res.body) === 'ORDER_ALREADY_CAPTURED') return;
  throw rejected(res);
}

export const walletPsp: PaymentProvider = {
  slug: 'wallet_psp',
  register,
  verifyWebhook,
  parseWebhook,
  fetchStatus,
  findRegistration,
  capture,
  refund,
  fetchBalances,
  listPayouts,
};
