/**
 * Schemas of what the gateway answers and sends (JSON Schema 2020-12). They describe the
 * bodies in the OpenAPI document (src/http/openapi/); the integration tests check every
 * answer they receive against that document, so a field added, dropped or retyped in a
 * service fails a test until the schema says so. Objects are closed (additionalProperties:
 * false) for that reason; metadata and audit details are the app's and operator's own.
 */
import { arrayOf, hex32, nullable, object, ref, str } from './schemaParts.js';
import { ENDPOINT_SCHEMAS } from './endpointResponseSchemas.js';
import { RECONCILIATION_SCHEMAS } from './reconciliationSchemas.js';
import { MODES } from './types.js';
import { OPERATOR_RESPONSE_SCHEMAS } from './operatorResponseSchemas.js';
import type { JsonSchema } from './schemas.js';
import {
  CreatedPayment,
  EventList,
  OutboundEvent,
  Payment,
  PaymentEvent,
  Refund,
  RefundEvent,
  SubscriptionEvent,
  DisputeEvent,
} from './paymentResponseSchemas.js';
import {
  AdminRefund,
  App,
  AppWithSecrets,
  Dispute,
  Exception,
  PaymentDetail,
  PaymentList,
  RefundList,
  Summary,
  Timeseries,
} from './adminResponseSchemas.js';
import {
  AuditList,
  Balances,
  DeliveryList,
  InboundEventList,
  LedgerEntry,
  Payouts,
  Stuck,
  WebhookAck,
} from './opsResponseSchemas.js';

export { EVENT_KINDS } from './paymentResponseSchemas.js';

/** Named schemas, referenced as #/components/schemas/<name>. */
export const RESPONSE_SCHEMAS = {
  Payment,
  CreatedPayment,
  Refund,
  PaymentEvent,
  RefundEvent,
  SubscriptionEvent,
  DisputeEvent,
  OutboundEvent,
  EventList,
  App,
  AppWithSecrets,
  AppList: object({ apps: arrayOf(ref('App')) }),
  Summary,
  Timeseries,
  PaymentList,
  AdminRefund,
  RefundList,
  PaymentDetail,
  Dispute,
  DisputeList: object({
    mode: { type: 'string', enum: [...MODES, ''] },
    disputes: arrayOf(ref('Dispute')),
  }),
  Exception,
  ExceptionList: object({ exceptions: arrayOf(ref('Exception')) }),
  LedgerEntry,
  LedgerList: object({
    entries: arrayOf(ref('LedgerEntry')),
    next_before: nullable(
      hex32(
        'The `before` of the next page: the last entry of a full page, or the last entry the list examined when it stopped at its bound, even on a page shorter than `limit` or empty; null only when the list reached the end (docs/api.md#ledger).',
      ),
    ),
  }),
  ...RECONCILIATION_SCHEMAS,
  DeliveryEnqueued: object({ delivery_id: str('dlv_ followed by 24 lowercase hex characters.') }),
  Redelivered: object({ deliveries: { type: 'integer', minimum: 0 } }),
  DeliveryList,
  InboundEventList,
  Balances,
  Payouts,
  Stuck,
  AuditList,
  ...OPERATOR_RESPONSE_SCHEMAS,
  WebhookAck,
  ...ENDPOINT_SCHEMAS,
  Health: object({ status: { const: 'ok' } }),
  Ready: object(
    {
      status: { const: 'ready' },
      warnings: {
        type: 'array',
        minItems: 1,
        items: { type: 'string' },
        description:
          'Present only when something will degrade the gateway over time, such as autovacuum being off on the database server.',
      },
    },
    ['warnings'],
  ),
  OpenApiDocument: {
    type: 'object',
    required: ['openapi', 'info', 'paths'],
    properties: { openapi: { const: '3.1.0' } },
  },
} satisfies Record<string, JsonSchema>;

export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;
