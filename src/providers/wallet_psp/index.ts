import { testScenarioFor } from '../../domain/testScenarios.js';
import { minorToDecimal } from '../../domain/money.js';
import type { IncomingHttpHeaders } from 'node:http';
import type {
  InboundAction,
  InboundEvent,
  Transmission,
  PaymentProvider,
  ProviderContext,
  ProviderPaymentRef,
  RegisterPaymentInput,
  RegisteredPayment,
  RegistrationLookup,
} from '../types.js';
import { BadReference, ProviderError } from '../types.js';
import { apiCall, errorIssue, rejected } from './client.js';
import type { WpDispute } from './disputeWire.js';
import { confirmedRefundAction, disputeAction, orderAction, reversalAction } from './mapping.js';
import { refund } from './refund.js';
import { parseWebhook, verifyWebhook } from './webhook.js';
import { fetchBalances, listPayouts } from './reporting.js';
import type { WpRefundResource } from './refundWire.js';
import { WP_CURRENCIES, WP_HEADER, type WpCreateOrderRequest, type WpOrder } from './wire.js';

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

async function getOrder(ctx: ProviderContext, orderId: string): Promise<WpOrder> {
  const res = await apiCall(ctx, 'GET', orderPath(orderId));
  if (res.status !== 200) throw rejected(res);
  if (!isOrder(res.body)) throw new ProviderError('indeterminate', 'wallet_psp order unreadable');
  return res.body;
}

async function fetchStatus(ctx: ProviderContext, ref: ProviderPaymentRef): Promise<InboundAction> {
  // Orders are found by id only; a create that never answered is retried by the payment
  // flow under the same request id, which returns the order if it exists.
  if (!ref.providerRef) return { kind: 'none' };
  return orderAction(await getOrder(ctx, ref.providerRef));
}

function isRefund(v: unknown): v is WpRefundResource {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as WpRefundResource).id === 'string' &&
    typeof (v as WpRefundResource).status === 'string'
  );
}

/** The capture a refund belongs to: PayPal links each refund `up` to its capture. */
function captureIdOf(refund: WpRefundResource): string | null {
  const up = (refund.links ?? []).find((l) => l.rel === 'up');
  if (!up) return null;
  let path: string;
  try {
    path = new URL(up.href).pathname;
  } catch {
    return null;
  }
  const m = /\/v2\/payments\/captures\/([^/]+)$/.exec(path);
  return m?.[1] ? decodeURIComponent(m[1]) : null;
}

/**
 * The signature covers a CRC32 of the body, which anyone can make match, so the event only
 * says which payment to ask about. The order (its capture and amount) is read from the
 * provider for every event that would move money, and a refund event's refund from the
 * refunds API, tied to the payment through its capture.
 */
async function confirmEvent(
  ctx: ProviderContext,
  ref: ProviderPaymentRef,
  claimed: InboundEvent,
): Promise<InboundAction[]> {
  if (!ref.providerRef) return [{ kind: 'none' }];
  const order = await getOrder(ctx, ref.providerRef);
  const status = orderAction(order);
  const capture = order.purchase_units[0]?.payments?.captures?.[0];
  const claim = claimed.action;
  const claimedCase =
    claim.kind === 'dispute' && claimed.eventType.startsWith('CUSTOMER.DISPUTE.')
      ? await confirmDispute(ctx, claim.providerRef, capture?.id)
      : null;
  // A reversed capture is on record whichever event brought the gateway here: as the case
  // that holds its money where PayPal has one for the capture (a chargeback case reverses the
  // capture: the same money, booked once), else as a reversal of its own.
  let reversal: InboundAction | null = capture ? reversalAction(capture) : null;
  if (reversal && capture && !claimedCase) {
    reversal = (await caseOfCapture(ctx, capture.id)) ?? reversal;
  }
  const confirmed: InboundAction[] = [status];
  if (claimedCase) confirmed.push(claimedCase);
  else if (reversal) confirmed.push(reversal);
  if (claim.kind === 'dispute' && claimed.eventType.startsWith('CUSTOMER.DISPUTE.')) {
    return confirmed;
  }
  if (claim.kind !== 'refund' || !claim.providerRefundRef) return confirmed;
  const res = await apiCall(
    ctx,
    'GET',
    `/v2/payments/refunds/${encodeURIComponent(claim.providerRefundRef)}`,
  );
  if (res.status === 404) return confirmed;
  if (res.status !== 200) throw rejected(res);
  if (!isRefund(res.body)) throw new ProviderError('indeterminate', 'wallet_psp refund unreadable');
  const refund = res.body;
  if (!capture || captureIdOf(refund) !== capture.id) {
    throw new BadReference(`refund ${JSON.stringify(refund.id)} belongs to another payment`);
  }
  return [...confirmed, confirmedRefundAction(refund)];
}

function isDispute(v: unknown): v is WpDispute {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as WpDispute).dispute_id === 'string' &&
    typeof (v as WpDispute).status === 'string'
  );
}

/**
 * The dispute as the provider's dispute API shows it (GET /v1/customer/disputes/{id}), tied
 * to the payment through the disputed transaction: the order's capture. Unknown to the
 * provider: nothing is confirmed.
 */
async function confirmDispute(
  ctx: ProviderContext,
  disputeId: string,
  captureId: string | undefined,
): Promise<InboundAction | null> {
  const res = await apiCall(ctx, 'GET', `/v1/customer/disputes/${encodeURIComponent(disputeId)}`);
  if (res.status === 404) return null;
  if (res.status !== 200) throw rejected(res);
  if (!isDispute(res.body))
    throw new ProviderError('indeterminate', 'wallet_psp dispute unreadable');
  const dispute = res.body;
  const disputed = (dispute.disputed_transactions ?? []).map((t) => t.seller_transaction_id);
  if (!captureId || !disputed.includes(captureId)) {
    throw new BadReference(
      `dispute ${JSON.stringify(dispute.dispute_id)} belongs to another payment`,
    );
  }
  const action = disputeAction(dispute);
  return action ? { ...action, covers: captureId } : null;
}

/**
 * The newest case PayPal has for a capture (GET /v1/customer/disputes?disputed_transaction_id=,
 * PayPal Disputes v1 list), read in full and confirmed like any case; null when none.
 */
async function caseOfCapture(
  ctx: ProviderContext,
  captureId: string,
): Promise<InboundAction | null> {
  const res = await apiCall(
    ctx,
    'GET',
    `/v1/customer/disputes?disputed_transaction_id=${encodeURIComponent(captureId)}`,
  );
  if (res.status !== 200) throw rejected(res);
  const items = (res.body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items))
    throw new ProviderError('indeterminate', 'wallet_psp disputes unreadable');
  const newest = items
    .filter((i): i is { dispute_id: string; create_time?: string } => isDisputeSummary(i))
    .sort((a, b) => (b.create_time ?? '').localeCompare(a.create_time ?? ''))[0];
  return newest ? confirmDispute(ctx, newest.dispute_id, captureId) : null;
}

function isDisputeSummary(v: unknown): v is { dispute_id: string; create_time?: string } {
  return typeof v === 'object' && v !== null && typeof (v as WpDispute).dispute_id === 'string';
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function transmission(headers: IncomingHttpHeaders): Transmission | null {
  const id = headerValue(headers, WP_HEADER.transmissionId);
  return id ? { id } : null;
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
  confirmEvent,
  transmission,
  findRegistration,
  capture,
  refund,
  fetchBalances,
  listPayouts,
};
