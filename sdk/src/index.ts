export {
  Paygate,
  Payments,
  Refunds,
  Webhooks,
  type CreateOptions,
  type GetOptions,
  type PaygateOptions,
  type WaitOptions,
} from './client.js';
export {
  PaygateAuthenticationError,
  PaygateBadRequestError,
  PaygateConflictError,
  PaygateConnectionError,
  PaygateError,
  PaygateGatewayTimeoutError,
  PaygateNotFoundError,
  PaygateProviderError,
  PaygateServerError,
  PaygateTimeoutError,
  PaygateUnavailableError,
  PaygateUnprocessableError,
  PaygateWebhookError,
} from './errors.js';
export type { RetryOptions } from './transport.js';
export type * from './types.js';
export {
  verifyWebhook,
  webhookEventId,
  type VerifyOptions,
  type WebhookHeaders,
} from './webhooks.js';
export { listen, newForwardingSecret, signDelivery, type ListenOptions } from './listen.js';
