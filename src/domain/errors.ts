/**
 * Every error a client can get from the gateway, in one closed table: its HTTP status and
 * its exact plain-text body (docs/api.md#errors), or a template for bodies that name a
 * field, a provider or the provider's own text. The one error handler (http/server.ts)
 * answers with these; anything else becomes a 500 that leaks nothing.
 */
const ERRORS = {
  // 400: the request is wrong; nothing changed.
  invalid: { status: 400, body: (reason: string) => reason },
  missing_fields: { status: 400, body: (fields: string) => `missing required fields: ${fields}` },
  invalid_json: { status: 400, body: 'invalid JSON body' },
  bad_request: { status: 400, body: 'bad request' },
  body_read: { status: 400, body: 'body read' },
  bad_reference: { status: 400, body: (why: string) => `bad reference: ${why}` },
  // 401
  missing_auth_headers: { status: 401, body: 'missing auth headers' },
  bad_timestamp: { status: 401, body: 'bad timestamp' },
  timestamp_out_of_range: { status: 401, body: 'timestamp out of range' },
  bad_signature: { status: 401, body: 'bad signature' },
  unauthorized: { status: 401, body: 'unauthorized' },
  sign_in_failed: { status: 401, body: (why: string) => `sign-in failed: ${why}` },
  // 403: a known operator, a route their role may not use (docs/operations.md#operator-roles)
  forbidden: {
    status: 403,
    body: (role: string, action: string) => `forbidden: role ${role} cannot ${action}`,
  },
  csrf_failed: { status: 403, body: 'forbidden: missing or wrong CSRF token' },
  // 404
  not_found: { status: 404, body: 'not found' },
  payment_not_found: { status: 404, body: 'payment not found' },
  app_not_found: { status: 404, body: 'app not found' },
  exception_not_found: { status: 404, body: 'exception not found' },
  dispute_not_found: { status: 404, body: 'dispute not found' },
  endpoint_not_found: { status: 404, body: 'endpoint not found' },
  unknown_payment: { status: 404, body: 'unknown payment' },
  operator_not_found: { status: 404, body: 'operator not found' },
  token_not_found: { status: 404, body: 'token not found' },
  // 408..431: Node's and the router's own refusals
  request_timeout: { status: 408, body: 'request timeout' },
  idempotency_conflict: { status: 409, body: 'idempotency conflict — different body for same key' },
  operator_exists: { status: 409, body: 'an operator with this email already exists' },
  body_too_large: { status: 413, body: 'body too large' },
  uri_too_long: { status: 414, body: 'uri too long' },
  headers_too_large: { status: 431, body: 'headers too large' },
  // 422: understood, but the payment's state or the app's settings refuse it
  no_provider: {
    status: 422,
    body: (method: string, currency: string) =>
      `no provider supports method=${method} for currency=${currency}`,
  },
  provider_not_allowed: {
    status: 422,
    body: (provider: string) => `provider ${provider} not allowed for this app`,
  },
  method_not_enabled: {
    status: 422,
    body: (method: string, provider: string) =>
      `method ${method} not enabled for provider ${provider} on this app`,
  },
  refund_needs_succeeded: {
    status: 422,
    body: (status: string) => `payment must be in 'succeeded' state to refund (got ${status})`,
  },
  already_refunded: { status: 422, body: 'payment already has a refund' },
  endpoint_disabled: { status: 422, body: 'endpoint is disabled' },
  payment_disputed: {
    status: 422,
    body: (status: string) => `payment has a dispute (status ${status})`,
  },
  refund_exceeds_amount: { status: 422, body: 'refund amount exceeds payment amount' },
  already_finalized: {
    status: 422,
    body: (status: string) => `payment already finalized (status ${status})`,
  },
  no_webhook_event: { status: 422, body: 'payment has no webhook event to deliver' },
  no_settlement_file: {
    status: 422,
    body: (provider: string, date: string) =>
      `no settlement file imported for ${provider} on ${date}`,
  },
  exception_already_resolved: {
    status: 422,
    body: (resolution: string) => `exception already ${resolution}`,
  },
  last_admin: {
    status: 422,
    body: 'the last enabled admin cannot be disabled or demoted while ADMIN_TOKEN is off',
  },
  admin_token_needs_admin: {
    status: 422,
    body: 'ADMIN_TOKEN can be turned off only while an enabled admin operator exists',
  },
  // 429
  too_many_unverified_webhooks: { status: 429, body: 'too many unverified webhooks' },
  too_many_failed_authentications: { status: 429, body: 'too many failed authentications' },
  too_many_exports: { status: 429, body: 'too many exports in progress' },
  // 500: ours; retryable where docs/api.md#errors says so
  internal: { status: 500, body: 'internal error' },
  payment_create_failed: { status: 500, body: 'payment create failed' },
  customer_upsert_failed: { status: 500, body: 'customer upsert failed' },
  store_provider_ref: { status: 500, body: 'store provider_ref' },
  // 502: the provider answered and refused (or is not configured for the mode): nothing
  // moved, and the same request gets the same refusal, so clients do not retry (D15).
  provider_checkout_failed: {
    status: 502,
    body: (providerText: string) => `provider checkout failed: ${providerText}`,
  },
  refund_failed: { status: 502, body: (providerText: string) => `refund failed: ${providerText}` },
  cancel_failed: { status: 502, body: (providerText: string) => `cancel failed: ${providerText}` },
  sync_failed: { status: 502, body: (providerText: string) => `sync failed: ${providerText}` },
  reconciliation_failed: {
    status: 502,
    body: (providerText: string) => `reconciliation failed: ${providerText}`,
  },
  // 503: retry later (with Retry-After)
  unavailable: { status: 503, body: 'service unavailable' },
  dashboard_not_built: { status: 503, body: 'dashboard not built: run npm run build' },
  // 504: the provider's outcome is unknown (timeout, connection lost, provider 5xx), so the
  // payment or refund stays initiated: a retry with the same Idempotency-Key is safe and
  // resolves it (D15). Same texts as the 502s; the status alone tells them apart.
  provider_checkout_unknown: {
    status: 504,
    body: (providerText: string) => `provider checkout failed: ${providerText}`,
  },
  refund_unknown: { status: 504, body: (providerText: string) => `refund failed: ${providerText}` },
  cancel_unknown: { status: 504, body: (providerText: string) => `cancel failed: ${providerText}` },
  sync_unknown: { status: 504, body: (providerText: string) => `sync failed: ${providerText}` },
  reconciliation_unknown: {
    status: 504,
    body: (providerText: string) => `reconciliation failed: ${providerText}`,
  },
} as const satisfies Record<
  string,
  { status: number; body: string | ((...args: string[]) => string) }
>;

export type ErrorKind = keyof typeof ERRORS;

/** The kinds whose body is one fixed text. */
export type FixedTextKind = {
  [K in ErrorKind]: (typeof ERRORS)[K]['body'] extends string ? K : never;
}[ErrorKind];

type BodyArgs<K extends ErrorKind> = (typeof ERRORS)[K]['body'] extends (...args: infer A) => string
  ? A
  : [];

/** The text for a provider with no endpoint in a mode (inside checkout, refund and sync errors). */
export function notConfigured(provider: string, mode: string): string {
  return `${provider} is not configured for ${mode} mode`;
}

/** The status and body of one kind, its template filled in. */
export function errorReply<K extends ErrorKind>(
  kind: K,
  ...args: BodyArgs<K>
): { status: number; body: string } {
  const e = ERRORS[kind] as { status: number; body: string | ((...a: string[]) => string) };
  return {
    status: e.status,
    body: typeof e.body === 'string' ? e.body : e.body(...(args as string[])),
  };
}

/** The one error type that reaches clients: built only from a kind of the table. */
export class ApiError extends Error {
  readonly status: number;
  protected constructor(
    readonly kind: ErrorKind,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(body);
    this.status = ERRORS[kind].status;
  }

  static of<K extends ErrorKind>(kind: K, ...args: BodyArgs<K>): ApiError {
    return new ApiError(kind, errorReply(kind, ...args).body);
  }

  /** The same error with headers (Retry-After) on its reply. */
  withHeaders(headers: Record<string, string>): ApiError {
    return new ApiError(this.kind, this.body, { ...this.headers, ...headers });
  }
}

export const apiError = ApiError.of;

export const notFoundPayment = () => apiError('payment_not_found');
