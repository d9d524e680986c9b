import { minorToDecimal } from '../../domain/money.js';
import type { ProviderContext, RefundInput, RefundResult } from '../types.js';
import { ProviderError } from '../types.js';
import { apiCall, rejected } from './client.js';
import { refundErrorText, refundOutcome } from './mapping.js';
import {
  NOTE_TO_PAYER_MAX,
  type WpRefundRequest,
  type WpRefundResource,
  type WpRefundStatus,
} from './refundWire.js';
import type { WpOrder } from './wire.js';

const REFUND_STATUSES: readonly WpRefundStatus[] = ['COMPLETED', 'PENDING', 'FAILED', 'CANCELLED'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isRefund(v: unknown): v is WpRefundResource {
  return (
    isObject(v) &&
    typeof v.id === 'string' &&
    v.id !== '' &&
    (REFUND_STATUSES as readonly unknown[]).includes(v.status)
  );
}

/**
 * The gateway stores the order id only; the refund operation takes the capture id, which
 * the order carries once captured (one capture per order, intent CAPTURE).
 */
async function captureId(ctx: ProviderContext, orderId: string): Promise<string> {
  const res = await apiCall(ctx, 'GET', `/v2/checkout/orders/${encodeURIComponent(orderId)}`);
  if (res.status !== 200) throw rejected(res);
  const order = res.body as Partial<WpOrder> | null;
  const capture = isObject(order) ? order.purchase_units?.[0]?.payments?.captures?.[0] : undefined;
  if (!capture || typeof capture.id !== 'string' || !capture.id) {
    throw new ProviderError('rejected', `wallet_psp order ${orderId} has no capture`);
  }
  return capture.id;
}

/**
 * Capture refund (docs/api.md#refunds-per-provider: up to about 180 days from capture, enforced by the provider).
 * PayPal-Request-Id = our refund id, so a retry after a timeout (or a resumed
 * Idempotency-Key) gets the original refund back instead of refunding twice.
 */
export async function refund(ctx: ProviderContext, input: RefundInput): Promise<RefundResult> {
  if (!input.providerRef) throw new ProviderError('rejected', 'wallet_psp order id unknown');
  const capture = await captureId(ctx, input.providerRef);
  const body: WpRefundRequest = {
    amount: {
      currency_code: input.currency,
      value: minorToDecimal(input.amountMinor, input.currency),
    },
    custom_id: input.paymentId,
    invoice_id: input.refundId,
  };
  if (input.reason) body.note_to_payer = input.reason.slice(0, NOTE_TO_PAYER_MAX);
  const res = await apiCall(
    ctx,
    'POST',
    `/v2/payments/captures/${encodeURIComponent(capture)}/refund`,
    {
      body,
      requestId: input.refundId,
    },
  );
  // 201 for a new refund, 200 when the request id replays an earlier one.
  if (res.status !== 200 && res.status !== 201) throw rejected(res);
  if (!isRefund(res.body)) {
    throw new ProviderError(
      'indeterminate',
      'wallet_psp answered a refund without an id or status',
    );
  }
  const answer = res.body;
  switch (refundOutcome(answer.status)) {
    case 'succeeded':
      return { status: 'succeeded', providerRefundRef: answer.id };
    case 'pending':
      return { status: 'pending', providerRefundRef: answer.id };
    case 'failed':
      throw new ProviderError(
        'rejected',
        refundErrorText(answer, `wallet_psp refund ${answer.status}`),
      );
  }
}
