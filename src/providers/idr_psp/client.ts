import { providerExchange, type ProviderAnswer } from '../http.js';
import { testScenarioFor } from '../../domain/testScenarios.js';
import {
  ProviderError,
  type InboundAction,
  type InboundEvent,
  type ProviderContext,
  type ProviderPaymentRef,
  type RefundInput,
  type RefundResult,
  type RegisterPaymentInput,
  type RegisteredPayment,
  type RegistrationLookup,
} from '../types.js';
import {
  confirmedActions,
  mapTransactionStatus,
  toGrossAmount,
  type StatusFields,
} from './mapping.js';
import {
  basicAuth,
  METHODS,
  formatProviderTime,
  parseProviderTime,
  QR_EXPIRY_MINUTES,
  SNAP_PAGE_GRACE_MS,
  VA_EXPIRY_HOURS,
  type CancelRefundRequest,
  type ChargeRequest,
  type SnapTransactionRequest,
  type TransactionWire,
} from './wire.js';

interface WireAnswer {
  /** HTTP status, or the body's status_code when the HTTP status says nothing (Core API). */
  status: number;
  body: Record<string, unknown>;
  text: string;
}

/**
 * The provider serves Snap and the Core API from different hosts (app.* and api.*). One base
 * URL is configured, the Core API's; the Snap host is derived from it for the provider's own
 * domains, and is the same base everywhere else (the simulator serves both).
 */
export function snapBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/^(https?:\/\/)api\.((?:sandbox\.)?midtrans\.com)(?=\/|$)/, '$1app.$2');
}

async function call(
  ctx: ProviderContext,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  idempotencyKey?: string,
): Promise<WireAnswer> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: basicAuth(ctx.endpoint.credentials.serverKey ?? ''),
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  let res: ProviderAnswer;
  try {
    res = await providerExchange(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: ctx.timeoutMs,
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    throw new ProviderError(
      'indeterminate',
      name === 'TimeoutError' || name === 'AbortError'
        ? `idr_psp did not answer within ${ctx.timeoutMs} ms`
        : 'idr_psp unreachable',
    );
  }
  const text = res.text;
  let parsed: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      parsed = v as Record<string, unknown>;
    }
  } catch {
    // Not JSON (a proxy's error page): the HTTP status decides.
  }
  let status = res.status;
  const bodyCode = typeof parsed.status_code === 'string' ? Number(parsed.status_code) : NaN;
  // The Core API may answer HTTP 200 with the real outcome in status_code.
  if (status < 300 && Number.isInteger(bodyCode) && bodyCode >= 200) status = bodyCode;
  return { status, body: parsed, text };
}

/** The provider's own words for a refusal, verbatim (Snap: error_messages; Core API: ...). */
function providerText(a: WireAnswer): string {
  const b = a.body;
  const list = Array.isArray(b.error_messages)
    ? b.error_messages
    : Array.isArray(b.validation_messages)
      ? b.validation_messages
      : null;
  const messages = (list ?? []).filter((m): m is string => typeof m === 'string');
  if (messages.length > 0) return messages.join(', ');
  if (typeof b.status_message === 'string' && b.status_message) return b.status_message;
  const t = a.text.trim();
  return t ? t.slice(0, 500) : `idr_psp answered HTTP ${a.status}`;
}

function failure(a: WireAnswer): ProviderError {
  if (a.status >= 400 && a.status < 500) return new ProviderError('rejected', providerText(a));
  return new ProviderError('indeterminate', `idr_psp answered ${a.status}: ${providerText(a)}`);
}

function customerDetails(input: RegisterPaymentInput): { email?: string } | undefined {
  return input.email ? { email: input.email } : undefined;
}

export async function registerPayment(
  ctx: ProviderContext,
  input: RegisterPaymentInput,
): Promise<RegisteredPayment> {
  const method = METHODS[input.method];
  if (!method || input.currency !== 'IDR') {
    throw new ProviderError(
      'rejected',
      `idr_psp does not support method ${input.method} in ${input.currency}`,
    );
  }
  if (input.directQr && input.method === 'qris') return chargeQr(ctx, input);

  const isQr = method.paymentType === 'qris';
  const lifetime = isQr
    ? ({ unit: 'minute', duration: QR_EXPIRY_MINUTES } as const)
    : ({ unit: 'hour', duration: VA_EXPIRY_HOURS } as const);
  const req: SnapTransactionRequest = {
    transaction_details: {
      order_id: input.paymentId,
      gross_amount: toGrossAmount(input.amountMinor),
    },
    enabled_payments: [method.snapPayment],
    callbacks: { finish: input.returnUrl },
    // Counted from now, not from when the buyer chooses a channel (the provider's default),
    // and the page closes with it: the payment has one known end, the deadline stored below.
    expiry: { ...lifetime, start_time: `${formatProviderTime(ctx.now())} +0700` },
    page_expiry: lifetime,
  };
  const customer = customerDetails(input);
  if (customer) req.customer_details = customer;
  const scenario = testScenarioFor(ctx.mode, input.metadata);
  if (scenario) req.custom_field1 = scenario;
  const a = await call(
    ctx,
    'POST',
    `${snapBaseUrl(ctx.endpoint.baseUrl)}/snap/v1/transactions`,
    req,
    input.paymentId,
  );
  if (a.status !== 200 && a.status !== 201) throw failure(a);
  const { token, redirect_url } = a.body;
  if (typeof token !== 'string' || !token || typeof redirect_url !== 'string' || !redirect_url) {
    throw new ProviderError('indeterminate', 'idr_psp answered without token or redirect_url');
  }
  // Snap does not say when the token lapses; counting from after its answer errs late, which
  // is the safe side for a deadline after which the reconciler asks.
  const lifetimeMs = isQr ? QR_EXPIRY_MINUTES * 60_000 : VA_EXPIRY_HOURS * 3_600_000;
  return {
    providerRef: token,
    checkoutUrl: redirect_url,
    expiresAt: new Date(ctx.now() + lifetimeMs),
  };
}

async function chargeQr(
  ctx: ProviderContext,
  input: RegisterPaymentInput,
): Promise<RegisteredPayment> {
  const req: ChargeRequest = {
    payment_type: 'qris',
    transaction_details: {
      order_id: input.paymentId,
      gross_amount: toGrossAmount(input.amountMinor),
    },
    qris: { acquirer: 'gopay' },
    custom_expiry: { expiry_duration: QR_EXPIRY_MINUTES, unit: 'minute' },
  };
  const customer = customerDetails(input);
  if (customer) req.customer_details = customer;
  const scenario = testScenarioFor(ctx.mode, input.metadata);
  if (scenario) req.custom_field1 = scenario;
  const a = await call(ctx, 'POST', `${ctx.endpoint.baseUrl}/v2/charge`, req, input.paymentId);
  if (a.status !== 200 && a.status !== 201) throw failure(a);
  const tx = a.body as Partial<TransactionWire>;
  const qrUrl = Array.isArray(tx.actions)
    ? tx.actions.find((x) => x?.name === 'generate-qr-code')?.url
    : undefined;
  if (typeof tx.transaction_id !== 'string' || typeof tx.qr_string !== 'string' || !qrUrl) {
    throw new ProviderError('indeterminate', 'idr_psp answered the QR charge without a QR');
  }
  const expiresAt =
    (typeof tx.expiry_time === 'string' && parseProviderTime(tx.expiry_time)) ||
    new Date(ctx.now() + QR_EXPIRY_MINUTES * 60_000);
  return {
    providerRef: tx.transaction_id,
    // The Core API has no hosted page; its QR image is the provider-hosted rendering.
    checkoutUrl: qrUrl,
    qrString: tx.qr_string,
    qrImageUrl: qrUrl,
    expiresAt,
  };
}

/**
 * The status API's 404 for an order the provider registered (we hold its Snap token): the
 * buyer has not chosen a channel on the page yet, so there is no transaction. The payment
 * stays payable until the page lapses (gateway's clock); after that nobody can ever pay it.
 */
function unchosenSnapOrder(ref: ProviderPaymentRef, a: WireAnswer, nowMs: number): InboundAction {
  const method = ref.method ? METHODS[ref.method] : undefined;
  if (!ref.createdAt || !method) return { kind: 'none' };
  const lifetimeMs =
    method.paymentType === 'qris' ? QR_EXPIRY_MINUTES * 60_000 : VA_EXPIRY_HOURS * 3_600_000;
  if (nowMs < ref.createdAt.getTime() + lifetimeMs + SNAP_PAGE_GRACE_MS) {
    return { kind: 'none' };
  }
  return {
    kind: 'payment',
    outcome: 'failed',
    errorText: `payment page expired without a payment method chosen (${providerText(a)})`,
  };
}

/** A status answer: the transaction as the mapping reads it, or what its absence means. */
type StatusAnswer =
  { kind: 'transaction'; tx: StatusFields } | { kind: 'absent'; action: InboundAction };

/**
 * GET /v2/{order_id}/status. A 404 for an order whose registration never answered means the
 * provider never registered it: the buyer never received a checkout URL from us, so the
 * payment can never be paid and is failed. A 404 for a registered one: unchosenSnapOrder.
 */
async function readStatus(ctx: ProviderContext, ref: ProviderPaymentRef): Promise<StatusAnswer> {
  const a = await call(
    ctx,
    'GET',
    `${ctx.endpoint.baseUrl}/v2/${encodeURIComponent(ref.paymentId)}/status`,
  );
  const tx = a.body as Partial<TransactionWire>;
  if (a.status < 500 && typeof tx.transaction_status === 'string' && tx.order_id) {
    return {
      kind: 'transaction',
      tx: {
        transaction_status: tx.transaction_status,
        gross_amount: typeof tx.gross_amount === 'string' ? tx.gross_amount : '',
        status_message: typeof tx.status_message === 'string' ? tx.status_message : '',
        transaction_id: typeof tx.transaction_id === 'string' ? tx.transaction_id : '',
        fraud_status: typeof tx.fraud_status === 'string' ? tx.fraud_status : undefined,
        currency: typeof tx.currency === 'string' ? tx.currency : 'IDR',
        refund_amount: typeof tx.refund_amount === 'string' ? tx.refund_amount : undefined,
        refunds: Array.isArray(tx.refunds) ? tx.refunds : undefined,
      },
    };
  }
  if (a.status === 404) {
    if (ref.providerRef !== null) {
      return { kind: 'absent', action: unchosenSnapOrder(ref, a, ctx.now()) };
    }
    return {
      kind: 'absent',
      action: { kind: 'payment', outcome: 'failed', errorText: providerText(a) },
    };
  }
  if (a.status < 300) {
    throw new ProviderError('indeterminate', 'idr_psp answered the status check without a status');
  }
  throw failure(a);
}

export async function fetchTransactionStatus(
  ctx: ProviderContext,
  ref: ProviderPaymentRef,
): Promise<InboundAction> {
  const s = await readStatus(ctx, ref);
  return s.kind === 'transaction' ? mapTransactionStatus(s.tx) : s.action;
}

/**
 * A notification is signed over order_id, status_code and gross_amount only, so its status,
 * refunds and the rest are a hint: what the status API answers for the order is applied
 * (docs/providers/idr_psp.md, "What a notification is trusted for").
 */
export async function confirmNotification(
  ctx: ProviderContext,
  ref: ProviderPaymentRef,
  claimed: InboundEvent,
): Promise<InboundAction[]> {
  const s = await readStatus(ctx, ref);
  return s.kind === 'transaction' ? confirmedActions(s.tx, claimed.action) : [s.action];
}

/**
 * The status API knows every order by our payment id: 404 means the provider has none. An
 * order it has is registered again (idempotent on order_id: the same Snap token or QR
 * charge comes back), which gives the page and expiry the status answer lacks.
 */
export async function findRegistration(
  ctx: ProviderContext,
  input: RegisterPaymentInput,
): Promise<RegistrationLookup> {
  const a = await call(
    ctx,
    'GET',
    `${ctx.endpoint.baseUrl}/v2/${encodeURIComponent(input.paymentId)}/status`,
  );
  if (a.status === 404) return { kind: 'none', providerText: providerText(a) };
  // Anything else but an answer (a wrong key, an outage) says nothing about the order.
  if (a.status >= 300) {
    throw new ProviderError('indeterminate', `idr_psp answered ${a.status}: ${providerText(a)}`);
  }
  return { kind: 'found', registration: await registerPayment(ctx, input) };
}

function cancelUrl(ctx: ProviderContext, paymentId: string): string {
  return `${ctx.endpoint.baseUrl}/v2/${encodeURIComponent(paymentId)}/cancel`;
}

function refundUrl(ctx: ProviderContext, paymentId: string): string {
  return `${ctx.endpoint.baseUrl}/v2/${encodeURIComponent(paymentId)}/refund/online/direct`;
}

/**
 * Refunds a settled payment through the provider's online direct refund (its cancel
 * operation only voids a transaction before settlement). refund_key is our refund id, so a retry after an unknown outcome gets the
 * original refund back, and the provider's later refund notification names the same key.
 * status_code 200: done; 201: accepted, the paying wallet settles it later (cross-wallet QRIS).
 */
export async function refundTransaction(
  ctx: ProviderContext,
  input: RefundInput,
): Promise<RefundResult> {
  if (input.currency !== 'IDR') {
    throw new ProviderError('rejected', `idr_psp does not refund in ${input.currency}`);
  }
  const req: CancelRefundRequest = {
    refund_key: input.refundId,
    amount: toGrossAmount(input.amountMinor),
  };
  if (input.reason) req.reason = input.reason;
  const a = await call(ctx, 'POST', refundUrl(ctx, input.paymentId), req, input.refundId);
  if (a.status !== 200 && a.status !== 201) throw failure(a);
  const key = a.body.refund_key;
  if (key !== undefined && key !== input.refundId) {
    throw new ProviderError('indeterminate', 'idr_psp answered the refund with another refund_key');
  }
  return { status: a.status === 200 ? 'succeeded' : 'pending', providerRefundRef: input.refundId };
}

/**
 * Cancels an unpaid transaction so the buyer can no longer pay it. The provider refuses to
 * cancel a settled one (412), so a payment that settles between the status read and the
 * cancel is refused, never refunded behind our back: the caller then reads the status and
 * treats the payment as paid (services/payments/cancel.ts).
 */
export async function cancelTransaction(
  ctx: ProviderContext,
  ref: ProviderPaymentRef,
): Promise<void> {
  const s = await call(
    ctx,
    'GET',
    `${ctx.endpoint.baseUrl}/v2/${encodeURIComponent(ref.paymentId)}/status`,
  );
  // A Snap order nobody chose a channel for has no transaction to void yet: the provider
  // cannot close its page, so the payment is canceled here only. Should the buyer still pay
  // on it, that charge is recorded as paid after cancel and refunded (docs/providers/idr_psp.md).
  if (s.status === 404 && ref.providerRef !== null) return;
  const status = s.body.transaction_status;
  // An expired transaction comes with status_code 407: its status still says what it is.
  if (typeof status !== 'string' || s.status >= 500) {
    if (s.status >= 300) throw failure(s);
    throw new ProviderError('indeterminate', 'idr_psp answered the status check without a status');
  }
  if (status !== 'pending') {
    throw new ProviderError(
      'rejected',
      `idr_psp transaction is ${status}, not pending: there is nothing to cancel`,
    );
  }
  const a = await call(ctx, 'POST', cancelUrl(ctx, ref.paymentId));
  if (a.status >= 300) throw failure(a);
  if (a.body.transaction_status !== 'cancel') {
    throw new ProviderError(
      'rejected',
      `idr_psp answered the cancel with transaction_status ${String(a.body.transaction_status)}`,
    );
  }
}
