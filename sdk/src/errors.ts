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

/** 500 and other 5xx without a class of their own: an internal failure, retryable. */
export class PaygateServerError extends PaygateError {
  override name = 'PaygateServerError';
}

/** 502: the payment provider refused or did not answer; the text is the provider's. */
export class PaygateProviderError extends PaygateServerError {
  override name = 'PaygateProviderError';
}

/** 503: the gateway is starting, draining or busy; retryable. */
export class PaygateUnavailableError extends PaygateServerError {
  override name = 'PaygateUnavailableError';
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
};

/** The error for a non-2xx answer: the class of its status, the body as its message. */
export function errorForStatus(status: number, body: string): PaygateError {
  const Class = BY_STATUS[status] ?? (status >= 500 ? PaygateServerError : PaygateError);
  return new Class(status, body);
}
