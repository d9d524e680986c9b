import { randomUUID } from 'node:crypto';
import { PaygateTimeoutError } from './errors.js';
import { sleep, Transport, type RetryOptions } from './transport.js';
import type {
  CreatedPayment,
  DisputeEvent,
  CreatePaymentParams,
  CreateRefundParams,
  FinalPayment,
  Payment,
  Refund,
  WebhookEvent,
} from './types.js';
import {
  verifyWebhook,
  webhookEventId,
  type VerifyOptions,
  type WebhookHeaders,
} from './webhooks.js';

export interface PaygateOptions {
  /** The gateway's base URL, e.g. `https://pay.example.com`. */
  baseUrl: string;
  /** The app's public key (`pk_...`). */
  apiKey: string;
  /** The app's request-signing secret (`sk_...`). */
  signingSecret: string;
  /** Per HTTP attempt; default 30000. */
  timeoutMs?: number;
  retry?: RetryOptions;
}

export interface CreateOptions {
  /**
   * Makes retries safe: the gateway answers a repeated key with the first answer. Give one
   * that is stable for the purchase (an order id) to be safe across your own restarts too;
   * without it a random UUID is used for this call and its retries.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface GetOptions {
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Stops the wait; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Give up after this long with PaygateTimeoutError; default 20 minutes (the QR expiry). */
  timeoutMs?: number;
  /** Pause between reads; default 1000 (the gateway's polling guidance). */
  intervalMs?: number;
}

/** A marker reason, so a deadline is told apart from the caller's own abort. */
const DEADLINE = new Error('waitForFinal deadline');

export class Payments {
  constructor(private readonly t: Transport) {}

  /** POST /v1/payments, always with an Idempotency-Key (generated when none is given). */
  create(body: CreatePaymentParams, options: CreateOptions = {}): Promise<CreatedPayment> {
    return this.t.request<CreatedPayment>('POST', '/v1/payments', body, {
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** GET /v1/payments/{id}: the canonical state. */
  get(paymentId: string, options: GetOptions = {}): Promise<Payment> {
    return this.t.request<Payment>(
      'GET',
      `/v1/payments/${encodeURIComponent(paymentId)}`,
      undefined,
      options,
    );
  }

  /**
   * Reads the payment about once a second until its status is final (succeeded, failed or
   * canceled) and returns it. Rejects with PaygateTimeoutError after timeoutMs, or with the
   * signal's reason when it aborts.
   */
  async waitForFinal(paymentId: string, options: WaitOptions = {}): Promise<FinalPayment> {
    const { signal } = options;
    signal?.throwIfAborted();
    const timeoutMs = options.timeoutMs ?? 20 * 60_000;
    const intervalMs = options.intervalMs ?? 1000;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(DEADLINE), timeoutMs);
    const onAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let last: Payment | undefined;
    try {
      for (;;) {
        last = await this.get(paymentId, { signal: stop.signal });
        if (last.status !== 'initiated') return last as FinalPayment;
        await sleep(intervalMs, stop.signal);
      }
    } catch (err) {
      if (stop.signal.reason === DEADLINE && !signal?.aborted) {
        throw new PaygateTimeoutError(`payment ${paymentId} not final after ${timeoutMs} ms`, last);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

export class Refunds {
  constructor(private readonly t: Transport) {}

  /**
   * POST /v1/refunds, always with an Idempotency-Key (generated when none is given): a
   * duplicate request could otherwise refund twice at the provider.
   */
  create(body: CreateRefundParams, options: CreateOptions = {}): Promise<Refund> {
    return this.t.request<Refund>('POST', '/v1/refunds', body, {
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}

export class Webhooks {
  /** See verifyWebhook: checks signature and timestamp, returns the typed event. */
  verify(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    webhookSecret: string | readonly string[],
    options: VerifyOptions & { allowDisputes: true },
  ): WebhookEvent | DisputeEvent;
  verify(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    webhookSecret: string | readonly string[],
    options?: VerifyOptions,
  ): WebhookEvent;
  verify(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    webhookSecret: string | readonly string[],
    options: VerifyOptions = {},
  ): WebhookEvent | DisputeEvent {
    return options.allowDisputes === true
      ? verifyWebhook(rawBody, headers, webhookSecret, { ...options, allowDisputes: true })
      : verifyWebhook(rawBody, headers, webhookSecret, options);
  }

  /** X-PAY-Event-Id of a delivery: the same on every retry of one event, for deduplication. */
  eventId(headers: WebhookHeaders): string | undefined {
    return webhookEventId(headers);
  }
}

/** A client for one app of a Paygate gateway. */
export class Paygate {
  readonly payments: Payments;
  readonly refunds: Refunds;
  readonly webhooks: Webhooks;

  constructor(options: PaygateOptions) {
    const transport = new Transport(options);
    this.payments = new Payments(transport);
    this.refunds = new Refunds(transport);
    this.webhooks = new Webhooks();
  }
}
