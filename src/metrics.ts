import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Per-process metrics, scraped at GET /metrics (admin token, docs/api.md#health-and-metrics). */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const deliveryAttempts = new Counter({
  name: 'paygate_delivery_attempts_total',
  help: 'Outbound webhook attempts by verdict (delivered, retry, dead)',
  labelNames: ['verdict'] as const,
  registers: [registry],
});

export const deadDeliveries = new Counter({
  name: 'paygate_deliveries_dead_total',
  help: 'Outbound deliveries given up (4xx, or out of attempts)',
  registers: [registry],
});

export const deliveryDuration = new Histogram({
  name: 'paygate_delivery_attempt_seconds',
  help: 'Duration of outbound webhook attempts',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const inboundWebhooks = new Counter({
  name: 'paygate_inbound_webhooks_total',
  help: 'Inbound provider webhooks by provider and HTTP status answered',
  labelNames: ['provider', 'status'] as const,
  registers: [registry],
});

export const paymentExceptions = new Counter({
  name: 'paygate_payment_exceptions_total',
  help: 'Money a provider moved that the payment state cannot show, by kind (admin exceptions)',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const disputesOpened = new Counter({
  name: 'paygate_disputes_opened_total',
  help: 'Disputes and chargebacks first recorded, by provider (admin disputes)',
  labelNames: ['provider'] as const,
  registers: [registry],
});

export const adminAuthRateLimited = new Counter({
  name: 'paygate_admin_auth_rate_limited_total',
  help: 'Admin requests refused with 429: their source address failed authentication too often',
  registers: [registry],
});

export const webhooksRateLimited = new Counter({
  name: 'paygate_webhooks_rate_limited_total',
  help: 'Inbound webhooks refused with 429: bad signature from a source over its allowance',
  labelNames: ['provider'] as const,
  registers: [registry],
});

export const connectionsDropped = new Counter({
  name: 'paygate_http_connections_dropped_total',
  help: 'Connections refused at accept because HTTP_MAX_CONNECTIONS were open',
  registers: [registry],
});

export const endpointsAutoDisabled = new Counter({
  name: 'paygate_webhook_endpoints_auto_disabled_total',
  help: 'Webhook endpoints disabled because every attempt failed for ENDPOINT_DISABLE_AFTER_DAYS',
  registers: [registry],
});
