import { randomBytes, randomInt } from 'node:crypto';
import { decimalToMinor, minorToDecimal } from '../money.js';
import { decimalCurrencyText } from '../common.js';
import {
  WP_CURRENCIES,
  type WpCapture,
  type WpError,
  type WpErrorDetail,
  type WpOrder,
} from './wire.js';

/** One order as the simulator keeps it: the provider's view plus the simulator's own state. */
export interface SimOrder {
  order: WpOrder;
  clientId: string;
  /** The buyer's choice on the approval page: a later capture completes, or is declined. */
  approval: 'pay' | 'fail' | null;
  /** PayPal-Request-Id of the capture that happened (a retry with it replays the answer). */
  captureRequestId: string | null;
  /** A buyer action is delivering events right now; it sends the capture event itself. */
  actionInFlight: boolean;
  /** The capture's webhook is still to be sent (by whoever claims it first). */
  captureEventPending: boolean;
  /** Faults of the test_scenario already played (simulators/faults.ts). */
  faults_played?: string[];
}

/** An access token the token endpoint issued (also how tests count token requests). */
export interface SimToken {
  clientId: string;
  expiresAt: number;
}

export const TOKEN_LIFETIME_S = 32_400;

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Provider-style ids: 17 uppercase alphanumerics (orders, captures, events). */
export function providerId(length = 17): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALNUM[randomInt(ALNUM.length)];
  return s;
}

export function newAccessToken(): string {
  return `A21AA${randomBytes(32).toString('base64url')}`;
}

export function providerTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class WpApiError {
  constructor(
    readonly status: number,
    readonly body: WpError,
  ) {}
}

const ERROR_NAMES: Record<number, [string, string]> = {
  400: [
    'INVALID_REQUEST',
    'Request is not well-formed, syntactically incorrect, or violates schema.',
  ],
  404: ['RESOURCE_NOT_FOUND', 'The specified resource does not exist.'],
  422: [
    'UNPROCESSABLE_ENTITY',
    'The requested action could not be performed, semantically incorrect, or failed business validation.',
  ],
};

export function apiError(status: 400 | 404 | 422, detail: WpErrorDetail): WpApiError {
  const [name, message] = ERROR_NAMES[status] as [string, string];
  return new WpApiError(status, {
    name,
    message,
    debug_id: randomBytes(7).toString('hex'),
    details: [detail],
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface ValidOrderRequest {
  currency: string;
  value: string;
  customId?: string;
  invoiceId?: string;
  referenceId?: string;
  description?: string;
  returnUrl?: string;
  cancelUrl?: string;
  email?: string;
  /** The request named payment_source.paypal (the payer is sent to PayPal's own flow). */
  paypalSource: boolean;
}

/** The provider's rules for a create request; the first violation is the answer. */
export function validateCreate(body: unknown): ValidOrderRequest | WpApiError {
  if (!isObject(body)) {
    return apiError(400, {
      issue: 'MALFORMED_REQUEST_JSON',
      description: 'The request JSON is not well formed.',
    });
  }
  if (body.intent !== 'CAPTURE') {
    return apiError(422, {
      field: '/intent',
      value: String(body.intent),
      location: 'body',
      issue: 'INTENT_NOT_SUPPORTED',
      description: 'This simulator supports intent CAPTURE only.',
    });
  }
  const units = body.purchase_units;
  if (!Array.isArray(units) || units.length !== 1 || !isObject(units[0])) {
    return apiError(400, {
      field: '/purchase_units',
      location: 'body',
      issue: 'INVALID_ARRAY_LENGTH',
      description: 'Exactly one purchase unit is supported.',
    });
  }
  const unit = units[0];
  const amount = unit.amount;
  if (
    !isObject(amount) ||
    typeof amount.currency_code !== 'string' ||
    typeof amount.value !== 'string'
  ) {
    return apiError(400, {
      field: '/purchase_units/@reference_id==default/amount',
      location: 'body',
      issue: 'MISSING_REQUIRED_PARAMETER',
      description: 'A required field / parameter is missing.',
    });
  }
  if (!(WP_CURRENCIES as readonly string[]).includes(amount.currency_code)) {
    return apiError(422, {
      field: '/purchase_units/@reference_id==default/amount/currency_code',
      value: amount.currency_code,
      location: 'body',
      issue: 'CURRENCY_NOT_SUPPORTED',
      description: 'Currency code is not currently supported.',
    });
  }
  if (!/^\d{1,10}\.\d{2}$/.test(amount.value)) {
    return apiError(422, {
      field: '/purchase_units/@reference_id==default/amount/value',
      value: amount.value,
      location: 'body',
      issue: 'DECIMAL_PRECISION',
      description: 'The amount must be a decimal with exactly two decimal places.',
    });
  }
  if (/^0+\.00$/.test(amount.value)) {
    return apiError(422, {
      field: '/purchase_units/@reference_id==default/amount/value',
      value: amount.value,
      location: 'body',
      issue: 'CANNOT_BE_ZERO_OR_NEGATIVE',
      description: 'Must be greater than zero.',
    });
  }
  const text = (v: unknown, max: number, field: string): string | undefined | WpApiError => {
    if (v === undefined) return undefined;
    if (typeof v === 'string' && v.length >= 1 && v.length <= max) return v;
    return apiError(400, {
      field,
      location: 'body',
      issue: 'INVALID_STRING_LENGTH',
      description: `The value of a field is either too short or too long (1 to ${max}).`,
    });
  };
  const customId = text(unit.custom_id, 127, '/purchase_units/0/custom_id');
  const invoiceId = text(unit.invoice_id, 127, '/purchase_units/0/invoice_id');
  const referenceId = text(unit.reference_id, 256, '/purchase_units/0/reference_id');
  const description = text(unit.description, 127, '/purchase_units/0/description');
  for (const v of [customId, invoiceId, referenceId, description]) {
    if (v instanceof WpApiError) return v;
  }
  const paypal = isObject(body.payment_source) ? body.payment_source.paypal : undefined;
  const ctx = isObject(paypal) ? paypal.experience_context : undefined;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    currency: amount.currency_code,
    value: amount.value,
    customId: customId as string | undefined,
    invoiceId: invoiceId as string | undefined,
    referenceId: referenceId as string | undefined,
    description: description as string | undefined,
    returnUrl: isObject(ctx) ? str(ctx.return_url) : undefined,
    cancelUrl: isObject(ctx) ? str(ctx.cancel_url) : undefined,
    email: isObject(paypal) ? str(paypal.email_address) : undefined,
    paypalSource: isObject(paypal),
  };
}

/**
 * A new order as PayPal answers it: with payment_source.paypal it waits for the payer
 * (PAYER_ACTION_REQUIRED, a `payer-action` link); without one it is CREATED with an
 * `approve` link for the buyer and `update` and `capture` links for the merchant.
 */
export function newOrder(
  req: ValidOrderRequest,
  ids: { orderId: string; now: number; apiBase: string; publicBase: string },
): WpOrder {
  const t = providerTime(ids.now);
  const self = `${ids.apiBase}/v2/checkout/orders/${ids.orderId}`;
  const buyerPage = `${ids.publicBase}/checkoutnow?token=${ids.orderId}`;
  const order: WpOrder = {
    id: ids.orderId,
    intent: 'CAPTURE',
    status: req.paypalSource ? 'PAYER_ACTION_REQUIRED' : 'CREATED',
    purchase_units: [
      {
        reference_id: req.referenceId ?? 'default',
        amount: { currency_code: req.currency, value: req.value },
        ...(req.customId ? { custom_id: req.customId } : {}),
        ...(req.invoiceId ? { invoice_id: req.invoiceId } : {}),
        ...(req.description ? { description: req.description } : {}),
      },
    ],
    create_time: t,
    update_time: t,
    links: req.paypalSource
      ? [
          { href: self, rel: 'self', method: 'GET' },
          { href: buyerPage, rel: 'payer-action', method: 'GET' },
        ]
      : [
          { href: self, rel: 'self', method: 'GET' },
          { href: buyerPage, rel: 'approve', method: 'GET' },
          { href: self, rel: 'update', method: 'PATCH' },
          { href: `${self}/capture`, rel: 'capture', method: 'POST' },
        ],
  };
  if (req.paypalSource) {
    order.payment_source = {
      paypal: {
        ...(req.email ? { email_address: req.email } : {}),
        experience_context: {
          ...(req.returnUrl ? { return_url: req.returnUrl } : {}),
          ...(req.cancelUrl ? { cancel_url: req.cancelUrl } : {}),
        },
      },
    };
  }
  return order;
}

/** An order the buyer can still approve (or walk away from). */
export function awaitsPayer(order: WpOrder): boolean {
  return order.status === 'PAYER_ACTION_REQUIRED' || order.status === 'CREATED';
}

/** The capture an approved order gets; declined when the buyer chose Fail. */
export function newCapture(order: WpOrder, declined: boolean, now: number): WpCapture {
  const unit = order.purchase_units[0];
  const t = providerTime(now);
  const capture: WpCapture = {
    id: providerId(),
    status: declined ? 'DECLINED' : 'COMPLETED',
    amount: unit?.amount ?? { currency_code: 'USD', value: '0.00' },
    final_capture: true,
    supplementary_data: { related_ids: { order_id: order.id } },
    create_time: t,
    update_time: t,
  };
  if (declined) capture.status_details = { reason: 'DECLINED_BY_PROCESSOR' };
  else capture.seller_receivable_breakdown = receivable(capture.amount);
  if (unit?.custom_id) capture.custom_id = unit.custom_id;
  if (unit?.invoice_id) capture.invoice_id = unit.invoice_id;
  return capture;
}

/**
 * PayPal's breakdown of a completed capture, with a fee shaped like its standard domestic
 * rate (3.49% plus a fixed 0.49): tests of the ledger read a fee that is not a round share.
 */
function receivable(
  gross: WpCapture['amount'],
): NonNullable<WpCapture['seller_receivable_breakdown']> {
  const minor = decimalToMinor(gross.value, gross.currency_code) ?? 0;
  const fee = Math.min(minor, Math.round((minor * 349) / 10_000) + 49);
  const money = (m: number) => ({
    currency_code: gross.currency_code,
    value: minorToDecimal(m, gross.currency_code),
  });
  return { gross_amount: gross, paypal_fee: money(fee), net_amount: money(minor - fee) };
}

export function orderCapture(order: WpOrder): WpCapture | undefined {
  return order.purchase_units[0]?.payments?.captures?.[0];
}

export function amountText(order: WpOrder): string {
  const a = order.purchase_units[0]?.amount;
  return a ? decimalCurrencyText(a.value, a.currency_code) : '';
}

/** An order's status as the buyer on the approval page reads it (the API keeps PayPal's codes). */
export function buyerStatusText(status: string): string {
  switch (status) {
    case 'CREATED':
    case 'PAYER_ACTION_REQUIRED':
      return 'Waiting for your approval';
    case 'APPROVED':
      return 'Approved; the shop has not taken the payment yet';
    case 'COMPLETED':
      return 'Paid';
    case 'VOIDED':
      return 'Canceled';
    default:
      return status;
  }
}
