import type { Payment } from './types.js';

/**
 * The gateway answers every error with a standard HTTP status and a plain-text body. Each
 * status gets its own class so callers can match with `instanceof`; `message` is the body
 * exactly as the gateway sent it (for example `payment not found`).
 */
export class PaygateError extends Error {
  override name = 'PaygateError';
  constructor(
    /** The HTTP status the gateway answered. */
    readonly status: number,
    /** The gateway's plain-text error body, verbatim. */
    message: string,
  ) {
    super(message);
  }
}

/** 400: the request is malformed (missing fields, bad formats). */
export class PaygateBadRequestError extends PaygateError {
  override name = 'PaygateBadRequestError';
}

/** 401: the request signature, timestamp or key was refused. */
export class PaygateAuthenticationError extends PaygateError {
  override name = 'PaygateAuthenticationError';
}

/** 404: the payment does not exist or belongs to another app. */
export class PaygateNotFoundError extends PaygateError {
  override name = 'PaygateNotFoundError';
}

/** 409: the Idempotency-Key was used before with a different body. */
export class PaygateConflictError extends PaygateError {
  override name = 'PaygateConflictError';
}

/** 422: the request is well formed but not allowed (routing, refund rules). */
export class PaygateUnprocessableError extends PaygateError {
  override name = 'PaygateUnprocessableError';
}

/** 500 and other 5xx without a class of their own: a failure on the gateway's side (500 is retried). */
export class PaygateServerError extends PaygateError {
  override name = 'PaygateServerError';
}

/**
 * 502: the payment provider answered and refused; the text is the provider's. Nothing moved
 * and the same request gets the same refusal, so it is never retried.
 */
export class PaygateProviderError extends PaygateServerError {
  override name = 'PaygateProviderError';
}

/** 503: the gateway is starting, draining or busy; retryable. */
export class PaygateUnavailableError extends PaygateServerError {
  override name = 'PaygateUnavailableError';
}

/**
 * 504: the provider's outcome is unknown (timeout, connection lost, provider 5xx). The
 * payment or refund stays `initiated`; the SDK retries with the same Idempotency-Key, which
 * resolves it, and this is thrown only when the retries ran out.
 */
export class PaygateGatewayTimeoutError extends PaygateServerError {
  override name = 'PaygateGatewayTimeoutError';
}

/** No HTTP answer at all (connection refused or reset, per-attempt timeout), after retries. */
export class PaygateConnectionError extends Error {
  override name = 'PaygateConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** payments.waitForFinal gave up: the payment was still not final when timeoutMs passed. */
export class PaygateTimeoutError extends Error {
  override name = 'PaygateTimeoutError';
  constructor(
    message: string,
    /** The last state read from the gateway (status `initiated`); none if no read finished. */
    readonly payment: Payment | undefined,
  ) {
    super(message);
  }
}

/** webhooks.verify refused a delivery; answer the gateway with a 400. */
export class PaygateWebhookError extends Error {
  override name = 'PaygateWebhookError';
}

const BY_STATUS: Record<number, new (status: number, message: string) => PaygateError> = {
  400: PaygateBadRequestError,
  401: PaygateAuthenticationError,
  404: PaygateNotFoundError,
  409: PaygateConflictError,
  422: PaygateUnprocessableError,
  502: PaygateProviderError,
  503: PaygateUnavailableError,
  504: PaygateGatewayTimeoutError,
};

/**
 * The answers worth another attempt with the same Idempotency-Key (docs/api.md#errors): an
 * internal failure, unavailable, and an unknown provider outcome. A 4xx and a 502 (the
 * provider refused) are final: repeating them would only repeat the refusal.
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([500, 503, 504]);

/** The error for a non-2xx answer: the class of its status, the body as its message. */
export function errorForStatus(status: number, body: string): PaygateError {
  const Class = BY_STATUS[status] ?? (status >= 500 ? PaygateServerError : PaygateError);
  return new Class(status, body);
}
