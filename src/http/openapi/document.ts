/**
 * The OpenAPI 3.1 document of the gateway, served at GET /openapi.json and committed as
 * docs/openapi.json (a test keeps the two equal). It is generated from the schemas the
 * parsers use (src/domain/schemas.ts), the response schemas (src/domain/responseSchemas.ts)
 * and the error tables (./errors.ts); nothing in it is written twice.
 */
import { errorReply } from '../../domain/errors.js';
import { CURRENCY_EXPONENT } from '../../domain/money.js';
import { LEDGER_TYPES, PROVIDERS } from '../../domain/types.js';
import { PAYMENT_ID_PATH } from '../paths.js';
import {
  ADMIN_REFUND,
  CREATE_APP,
  CREATE_PAYMENT,
  CREATE_REFUND,
  IDEMPOTENCY_KEY,
  PARAMS,
  PATCH_APP,
  REDELIVER,
  RESOLVE_EXCEPTION,
  type JsonSchema,
} from '../../domain/schemas.js';
import { isDeliveredEventType } from '../../domain/events.js';
import { EVENT_KINDS, RESPONSE_SCHEMAS } from '../../domain/responseSchemas.js';
import { AUDIT_ACTIONS } from '../../services/audit.js';
import { EVENTS_PAGE_MAX_BYTES } from '../../services/events.js';
import * as E from './errors.js';
import type { ErrorBody } from './errors.js';
import { EXAMPLES } from './examples.js';
import { endpointOperations, REGENERATE_RULES, ROTATE } from './endpoints.js';
import { reconciliationOperations } from './reconciliation.js';
import type { Json, Operation, Param, Security } from './types.js';
import { operatorOperations } from './operators.js';
import { ROLES, rolesFor, ruleFor } from '../../auth/roles.js';

const PAYMENT_ID_PARAM: Param = {
  name: 'payment_id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description:
    'The payment id, 32 lowercase hex characters; any other value is answered 404 payment not found.',
};
const APP_ID_PARAM: Param = {
  name: 'app_id',
  in: 'path',
  required: true,
  schema: { type: 'string', examples: ['app_1a7c63dbe650b204c67e4daf'] },
};
const IDEMPOTENCY_PARAM: Param = {
  name: 'Idempotency-Key',
  in: 'header',
  schema: IDEMPOTENCY_KEY.schema,
  description:
    'Strongly recommended (docs/api.md#idempotency): the same key and body within 24 hours replays the stored answer.',
};
const q = (name: string, schema: JsonSchema, description?: string): Param => ({
  name,
  in: 'query',
  schema,
  ...(description ? { description } : {}),
});
const LIMIT = q('limit', PARAMS.limit);
const MODE = q('mode', PARAMS.mode);

const header = (name: string, description: string): Param => ({
  name,
  in: 'header',
  required: true,
  schema: { type: 'string' },
  description: `${description} Absent or wrong: 401 bad signature.`,
});

/** The signature headers each provider sends (docs/providers/<slug>.md). */
const PROVIDER_HEADERS: Record<(typeof PROVIDERS)[number], Param[]> = {
  // idr_psp signs inside the body (signature_key).
  idr_psp: [],
  card_psp: [
    header('webhook-id', 'Standard Webhooks message id.'),
    header('webhook-timestamp', 'Unix seconds, within 5 minutes.'),
    header('webhook-signature', 'Space-separated v1,<base64 HMAC-SHA256> entries.'),
  ],
  wallet_psp: [
    header('paypal-transmission-id', 'The transmission id.'),
    header('paypal-transmission-time', 'The transmission time.'),
    header('paypal-transmission-sig', 'Base64 RSA signature.'),
    header('paypal-cert-url', "A certificate URL of the provider's configured environment."),
    header('paypal-auth-algo', 'Exactly SHA256withRSA.'),
  ],
};

/** Every operation of the gateway (docs/api.md), in the order of that page. */
function operations(): Operation[] {
  const adminPayment = (path: string) => `/admin/payments/{payment_id}${path}`;
  return [
    // ------------------------------------------------------------------------------- /v1
    {
      method: 'post',
      path: '/v1/payments',
      operationId: 'createPayment',
      tag: 'Payments',
      summary: 'Create a payment',
      description:
        'Selects the provider by (currency, method), registers the payment there and answers with where to send the buyer. Checks in order: authentication, Idempotency-Key, the body, routing, the provider (docs/api.md#create-a-payment).',
      security: 'app',
      parameters: [IDEMPOTENCY_PARAM],
      body: { spec: CREATE_PAYMENT, example: EXAMPLES.createPayment, required: true },
      ok: {
        201: {
          schema: 'CreatedPayment',
          description: 'Created; a replay of the same key and body answers the same.',
          example: EXAMPLES.createdPayment,
        },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(CREATE_PAYMENT),
        E.IDEMPOTENT,
        E.APP_AUTH,
        E.ROUTING,
        E.PAYMENT_CREATE,
        E.WITH_BODY,
      ),
    },
    {
      method: 'get',
      path: '/v1/payments/{payment_id}',
      operationId: 'getPayment',
      tag: 'Payments',
      summary: 'Read a payment',
      description:
        'Signed with an empty body. Poll about once per second and stop at a terminal status.',
      security: 'app',
      parameters: [PAYMENT_ID_PARAM],
      ok: { 200: { schema: 'Payment', description: 'The payment.', example: EXAMPLES.payment } },
      errors: E.merge(E.APP_AUTH, E.PAYMENT_NOT_FOUND),
    },
    {
      method: 'get',
      path: '/v1/events',
      operationId: 'listEvents',
      tag: 'Events',
      summary: "List the app's own outbound events",
      description: `Oldest first after the cursor, so an app that was down catches up by itself. The query string is not part of the signed path. A page holds at most \`limit\` events and stops before the event whose payload would take the page's payloads past ${EVENTS_PAGE_MAX_BYTES} bytes (its first event always comes, however large), so a page can be shorter than \`limit\` while more follow: \`has_more\` says so, and the next page starts after the last event's id.`,
      security: 'app',
      parameters: [q('after', PARAMS.eventsAfter), q('limit', PARAMS.eventsLimit)],
      ok: {
        200: { schema: 'EventList', description: 'A page of events.', example: EXAMPLES.events },
      },
      errors: E.merge(E.APP_AUTH, E.EVENTS_LIST),
    },
    {
      method: 'post',
      path: '/v1/refunds',
      operationId: 'createRefund',
      tag: 'Refunds',
      summary: 'Refund a succeeded payment',
      description:
        'One refund per payment: an initiated or succeeded refund blocks another (docs/api.md#create-a-refund).',
      security: 'app',
      parameters: [IDEMPOTENCY_PARAM],
      body: { spec: CREATE_REFUND, example: EXAMPLES.createRefund, required: true },
      ok: {
        201: {
          schema: 'Refund',
          description: 'succeeded: refunded at once; initiated: the provider confirms later.',
          example: EXAMPLES.refund,
        },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(CREATE_REFUND),
        E.IDEMPOTENT,
        E.APP_AUTH,
        E.PAYMENT_NOT_FOUND,
        E.REFUND_RULES,
        E.WITH_BODY,
      ),
    },
    // -------------------------------------------------------------------- provider webhooks
    ...PROVIDERS.map((slug): Operation => ({
      method: 'post',
      path: `/webhooks/${slug}`,
      operationId: `${slug.replace(/_(.)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
      tag: 'Provider webhooks',
      summary: `Events from ${slug}`,
      description: `Authenticated by ${slug}'s own signature scheme and secret, checked under every mode configured for it (docs/providers/${slug}.md). The raw body is archived before anything else.`,
      security: 'none',
      parameters: PROVIDER_HEADERS[slug],
      rawBody: {
        description: `${slug}'s own event format, read as raw bytes (docs/providers/${slug}.md).`,
      },
      ok: {
        200: {
          schema: 'WebhookAck',
          description:
            'Acknowledged; action none: nothing to change; already_finalized: already terminal.',
          example: { acknowledged: true },
        },
      },
      errors: E.PROVIDER_WEBHOOK,
    })),
    // ------------------------------------------------------------------------------ admin
    {
      method: 'get',
      path: '/admin/apps',
      operationId: 'listApps',
      tag: 'Admin: apps',
      summary: 'List apps, newest first',
      security: 'admin',
      ok: {
        200: {
          schema: 'AppList',
          description: 'The apps, without secrets.',
          example: EXAMPLES.apps,
        },
      },
      errors: {},
    },
    {
      method: 'post',
      path: '/admin/apps',
      operationId: 'createApp',
      tag: 'Admin: apps',
      summary: 'Create an app',
      security: 'admin',
      body: { spec: CREATE_APP, example: EXAMPLES.createApp, required: true },
      ok: {
        201: {
          schema: 'AppWithSecrets',
          description: 'The app with its key and secrets.',
          example: EXAMPLES.appWithSecrets,
        },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(CREATE_APP, { types: false, lengths: false, missing: false }),
        E.APP_RULES,
        E.WITH_BODY,
      ),
    },
    {
      method: 'patch',
      path: '/admin/apps/{app_id}',
      operationId: 'updateApp',
      tag: 'Admin: apps',
      summary: "Change an app's name, webhook_url or allowed providers and methods",
      security: 'admin',
      parameters: [APP_ID_PARAM],
      body: { spec: PATCH_APP, example: EXAMPLES.patchApp, required: false },
      ok: {
        200: { schema: 'App', description: 'The app, without secrets.', example: EXAMPLES.app },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(PATCH_APP, { types: false, lengths: false, missing: false }),
        E.APP_RULES,
        E.APP_NOT_FOUND,
        E.WITH_BODY,
        E.LONG_PARAM,
      ),
    },
    {
      method: 'post',
      path: '/admin/apps/{app_id}/regenerate-keys',
      operationId: 'regenerateAppKeys',
      tag: 'Admin: apps',
      summary: 'New key and secrets; the old ones stop at once, or after grace_hours',
      description:
        'With grace_hours > 0 the old api key (with its signing secret) keeps authenticating on /v1 and deliveries to webhook_url carry X-PAY-Signature under the old webhook secret and X-PAY-Signature-Next under the new one, until rotates_at (docs/api.md#regenerate-keys).',
      security: 'admin',
      parameters: [APP_ID_PARAM],
      body: { spec: ROTATE, example: { grace_hours: 24 }, required: false },
      ok: {
        200: {
          schema: 'AppWithSecrets',
          description: 'The app with its new key and secrets.',
          example: EXAMPLES.appWithSecrets,
        },
      },
      errors: E.merge(REGENERATE_RULES, E.APP_NOT_FOUND, E.WITH_BODY, E.LONG_PARAM),
    },
    ...endpointOperations(),
    {
      method: 'post',
      path: '/admin/apps/{app_id}/redeliver',
      operationId: 'redeliverAppEvents',
      tag: 'Admin: apps',
      summary: "Queue fresh deliveries of an app's events in [since, until)",
      security: 'admin',
      parameters: [APP_ID_PARAM],
      body: { spec: REDELIVER, example: EXAMPLES.redeliver, required: true },
      ok: {
        202: {
          schema: 'Redelivered',
          description: 'The number of deliveries queued.',
          example: { deliveries: 3 },
        },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(REDELIVER, { types: false }),
        E.SINCE_UNTIL,
        E.APP_NOT_FOUND,
        E.WITH_BODY,
        E.LONG_PARAM,
      ),
    },
    {
      method: 'get',
      path: '/admin/summary',
      operationId: 'summary',
      tag: 'Admin: reports',
      summary: 'Totals per app, provider and currency over [since, until)',
      security: 'admin',
      parameters: [
        q('days', PARAMS.days),
        q('since', PARAMS.time, 'Wins over days.'),
        q('until', PARAMS.time, 'Default: now.'),
        MODE,
      ],
      ok: {
        200: {
          schema: 'Summary',
          description: 'The totals; sums are JSON integers, exact at any size.',
          example: EXAMPLES.summary,
        },
      },
      errors: E.merge(E.DAYS, E.SINCE_UNTIL),
    },
    {
      method: 'get',
      path: '/admin/timeseries',
      operationId: 'timeseries',
      tag: 'Admin: reports',
      summary: 'Daily succeeded sums per currency',
      security: 'admin',
      parameters: [q('days', PARAMS.days), MODE],
      ok: {
        200: {
          schema: 'Timeseries',
          description: 'One bucket per UTC day and currency.',
          example: EXAMPLES.timeseries,
        },
      },
      errors: E.DAYS,
    },
    {
      method: 'get',
      path: '/admin/payments',
      operationId: 'listPayments',
      tag: 'Admin: payments',
      summary: 'Payments, newest first, with search',
      security: 'admin',
      parameters: [
        MODE,
        q('status', PARAMS.paymentStatus),
        LIMIT,
        q('before', { type: 'string' }, 'The id of the last row of the previous page.'),
        q('q', PARAMS.q),
        q('app_id', PARAMS.appId),
        q('created_from', PARAMS.time, 'created_at from (inclusive).'),
        q('created_to', PARAMS.time, 'created_at before (exclusive).'),
        q('amount_min', PARAMS.amount),
        q('amount_max', PARAMS.amount),
      ],
      ok: {
        200: {
          schema: 'PaymentList',
          description: 'A page of payments.',
          example: EXAMPLES.paymentList,
        },
      },
      errors: E.merge(E.LIST_LIMIT, E.PAYMENT_LIST),
    },
    {
      method: 'get',
      path: adminPayment(''),
      operationId: 'getPaymentDetail',
      tag: 'Admin: payments',
      summary: 'One payment with its refund, disputes, events count and deliveries',
      security: 'admin',
      parameters: [PAYMENT_ID_PARAM],
      ok: {
        200: {
          schema: 'PaymentDetail',
          description: 'Every stored field of the payment.',
          example: EXAMPLES.paymentDetail,
        },
      },
      errors: E.PAYMENT_NOT_FOUND,
    },
    {
      method: 'get',
      path: '/admin/refunds',
      operationId: 'listRefunds',
      tag: 'Admin: payments',
      summary: 'Refunds, newest first',
      security: 'admin',
      parameters: [
        MODE,
        LIMIT,
        q('before', { type: 'string' }, 'The id of the last row of the previous page.'),
      ],
      ok: {
        200: {
          schema: 'RefundList',
          description: 'A page of refunds.',
          example: EXAMPLES.refundList,
        },
      },
      errors: E.merge(E.LIST_LIMIT, E.REFUND_LIST),
    },
    {
      method: 'post',
      path: adminPayment('/cancel'),
      operationId: 'cancelPayment',
      tag: 'Admin: payments',
      summary: 'Cancel an initiated payment, or refund a succeeded one',
      security: 'admin',
      parameters: [PAYMENT_ID_PARAM],
      ok: {
        200: {
          schema: 'Payment',
          description: 'Canceled: the payment.',
          example: EXAMPLES.canceled,
        },
        201: {
          schema: 'Refund',
          description: 'It had succeeded: the full refund.',
          example: EXAMPLES.refund,
        },
      },
      errors: E.merge(E.PAYMENT_NOT_FOUND, E.CANCEL, E.WITH_BODY),
    },
    {
      method: 'post',
      path: adminPayment('/refund'),
      operationId: 'adminRefund',
      tag: 'Admin: payments',
      summary: "Refund any app's payment",
      description: 'The rules, answers and errors of POST /v1/refunds; an empty body is {}.',
      security: 'admin',
      parameters: [PAYMENT_ID_PARAM, IDEMPOTENCY_PARAM],
      body: { spec: ADMIN_REFUND, example: EXAMPLES.adminRefund, required: false },
      ok: { 201: { schema: 'Refund', description: 'The refund.', example: EXAMPLES.refund } },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(ADMIN_REFUND),
        E.IDEMPOTENT,
        E.PAYMENT_NOT_FOUND,
        E.REFUND_RULES,
        E.WITH_BODY,
      ),
    },
    {
      method: 'post',
      path: adminPayment('/retry-webhook'),
      operationId: 'retryWebhook',
      tag: 'Admin: payments',
      summary: "Send the payment's latest event again",
      security: 'admin',
      parameters: [PAYMENT_ID_PARAM],
      ok: {
        202: {
          schema: 'DeliveryEnqueued',
          description: 'The new delivery.',
          example: { delivery_id: 'dlv_1a7c63dbe650b204c67e4daf' },
        },
      },
      errors: E.merge(E.PAYMENT_NOT_FOUND, E.RETRY_WEBHOOK, E.WITH_BODY),
    },
    {
      method: 'post',
      path: adminPayment('/sync'),
      operationId: 'syncPayment',
      tag: 'Admin: operations',
      summary: "Ask the provider for an initiated payment's status now and apply it",
      security: 'admin',
      parameters: [PAYMENT_ID_PARAM],
      ok: {
        200: {
          schema: 'Payment',
          description: 'The payment after the answer.',
          example: EXAMPLES.payment,
        },
      },
      errors: E.merge(E.PAYMENT_NOT_FOUND, E.SYNC, E.WITH_BODY),
    },
    {
      method: 'get',
      path: '/admin/exceptions',
      operationId: 'listExceptions',
      tag: 'Admin: payments',
      summary: 'Money a provider moved that a payment status cannot show',
      security: 'admin',
      parameters: [
        LIMIT,
        q('before', { type: 'string' }, 'An exception id from the previous page.'),
      ],
      ok: {
        200: {
          schema: 'ExceptionList',
          description: 'Newest first.',
          example: EXAMPLES.exceptions,
        },
      },
      errors: E.merge(E.LIST_LIMIT, E.EXCEPTION_LIST),
    },
    {
      method: 'get',
      path: '/admin/disputes',
      operationId: 'listDisputes',
      tag: 'Admin: payments',
      summary: 'Disputes and chargebacks, newest first',
      description:
        'Money a provider took back from a succeeded payment (D16), created and moved only by provider events the provider confirmed. An unknown mode is no filter, echoed as "".',
      security: 'admin',
      parameters: [
        q('status', { type: 'string', enum: ['open', 'won', 'lost'] }),
        q('provider', { type: 'string', enum: ['idr_psp', 'card_psp', 'wallet_psp'] }),
        q('app_id', PARAMS.appId),
        MODE,
        LIMIT,
        q('before', { type: 'string' }, 'A dispute id from the previous page.'),
      ],
      ok: {
        200: { schema: 'DisputeList', description: 'Newest first.', example: EXAMPLES.disputes },
      },
      errors: E.merge(E.LIST_LIMIT, E.DISPUTE_LIST),
    },
    {
      method: 'get',
      path: '/admin/disputes/{id}',
      operationId: 'getDispute',
      tag: 'Admin: payments',
      summary: 'One dispute',
      security: 'admin',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      ok: { 200: { schema: 'Dispute', description: 'The dispute.', example: EXAMPLES.dispute } },
      errors: E.merge(E.DISPUTE_NOT_FOUND, E.LONG_PARAM),
    },
    {
      method: 'post',
      path: '/admin/exceptions/{id}/resolve',
      operationId: 'resolveException',
      tag: 'Admin: payments',
      summary: 'Mark a manual exception resolved',
      security: 'admin',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      body: {
        spec: RESOLVE_EXCEPTION,
        example: { note: 'refunded in the provider dashboard' },
        required: true,
      },
      ok: {
        200: {
          schema: 'Exception',
          description: 'The exception, now resolved.',
          example: {
            ...EXAMPLES.exception,
            resolution: 'resolved',
            note: 'refunded in the provider dashboard',
            resolved_at: '2025-01-03T09:00:00.000Z',
          },
        },
      },
      errors: E.merge(
        E.JSON_TEXT,
        E.bodyRules(RESOLVE_EXCEPTION, { types: false, lengths: false, missing: false }),
        E.EXCEPTION_RESOLVE,
        E.WITH_BODY,
        E.LONG_PARAM,
      ),
    },
    {
      method: 'get',
      path: '/admin/deliveries',
      operationId: 'listDeliveries',
      tag: 'Admin: deliveries',
      summary: 'Outbound deliveries, most recently changed first',
      security: 'admin',
      parameters: [q('status', PARAMS.deliveryStatus), LIMIT],
      ok: {
        200: {
          schema: 'DeliveryList',
          description: 'The deliveries.',
          example: EXAMPLES.deliveries,
        },
      },
      errors: E.merge(E.LIST_LIMIT, E.DELIVERY_LIST),
    },
    {
      method: 'get',
      path: '/admin/inbound_events',
      operationId: 'listInboundEvents',
      tag: 'Admin: deliveries',
      summary: 'Archived provider webhooks, rejected ones included',
      security: 'admin',
      parameters: [
        q(
          'payment_id',
          { type: 'string' },
          "That payment's events (up to 1000); without it the latest 100.",
        ),
      ],
      ok: {
        200: {
          schema: 'InboundEventList',
          description: 'Newest first.',
          example: EXAMPLES.inboundEvents,
        },
      },
      errors: {},
    },
    {
      method: 'get',
      path: '/admin/balances',
      operationId: 'balances',
      tag: 'Admin: reports',
      summary: 'Balances per provider, mode and currency',
      security: 'admin',
      ok: {
        200: {
          schema: 'Balances',
          description: 'real from the provider, or calculated.',
          example: EXAMPLES.balances,
        },
      },
      errors: {},
    },
    {
      method: 'get',
      path: '/admin/ledger',
      operationId: 'listLedger',
      tag: 'Admin: reports',
      summary: 'Every movement of money, newest first',
      description:
        'One immutable entry per movement (docs/api.md#ledger); the summary net and the calculated balances are its sums.',
      security: 'admin',
      parameters: [
        LIMIT,
        q('before', { type: 'string' }, 'The id of the last entry of the previous page.'),
        q('provider', { type: 'string', enum: [...PROVIDERS] }),
        q('currency', { type: 'string', enum: Object.keys(CURRENCY_EXPONENT).sort() }),
        q('app_id', PARAMS.appId),
        MODE,
        q('type', { type: 'string', enum: [...LEDGER_TYPES] }),
        q('since', PARAMS.time, 'occurred_at from (inclusive).'),
        q('until', PARAMS.time, 'occurred_at before (exclusive).'),
      ],
      ok: {
        200: {
          schema: 'LedgerList',
          description: 'A page of entries.',
          example: EXAMPLES.ledger,
        },
      },
      errors: E.merge(E.LIST_LIMIT, E.SINCE_UNTIL, E.LEDGER_LIST),
    },
    ...reconciliationOperations(),
    {
      method: 'get',
      path: '/admin/payouts',
      operationId: 'payouts',
      tag: 'Admin: reports',
      summary: 'Payouts per provider over [since, until)',
      security: 'admin',
      parameters: [
        q('since', PARAMS.time, 'Default: 30 days before until.'),
        q('until', PARAMS.time, 'Default: now.'),
      ],
      ok: {
        200: {
          schema: 'Payouts',
          description: 'Per provider and mode.',
          example: EXAMPLES.payouts,
        },
      },
      errors: E.merge(E.SINCE_UNTIL, E.PAYOUT_WINDOW),
    },
    {
      method: 'get',
      path: '/admin/stuck',
      operationId: 'listStuck',
      tag: 'Admin: operations',
      summary: 'Payments and refunds waiting on a provider, oldest first',
      security: 'admin',
      parameters: [LIMIT],
      ok: {
        200: {
          schema: 'Stuck',
          description: 'Stuck payments and refunds.',
          example: EXAMPLES.stuck,
        },
      },
      errors: E.LIST_LIMIT,
    },
    {
      method: 'get',
      path: '/admin/audit',
      operationId: 'listAudit',
      tag: 'Admin: operations',
      summary: 'The audit log of admin changes, newest first',
      security: 'admin',
      parameters: [
        LIMIT,
        q('before', { type: 'integer', minimum: 1 }, 'An entry id from the previous page.'),
        q('action', { type: 'string', enum: [...AUDIT_ACTIONS] }),
        q('target_id', PARAMS.auditTargetId),
        q(
          'actor',
          { type: 'string', pattern: '^(root|system|op_[0-9a-f]{24})$' },
          'root (ADMIN_TOKEN) or an operator id: what that person did.',
        ),
      ],
      ok: { 200: { schema: 'AuditList', description: 'The entries.', example: EXAMPLES.audit } },
      errors: E.merge(E.LIST_LIMIT, E.AUDIT_LIST),
    },
    ...operatorOperations(),
    // ------------------------------------------------------------------ health and others
    {
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      tag: 'Health',
      summary: 'The process is up (also while starting and draining)',
      security: 'none',
      ok: { 200: { schema: 'Health', description: 'Up.', example: { status: 'ok' } } },
      errors: E.fixed('internal'),
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      tag: 'Health',
      summary: 'The database answers and every migration is applied',
      security: 'none',
      ok: { 200: { schema: 'Ready', description: 'Ready.', example: { status: 'ready' } } },
      errors: E.EVERY_ROUTE,
    },
    {
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      tag: 'Health',
      summary: 'Prometheus metrics',
      security: 'admin',
      ok: {
        200: {
          text: 'text/plain',
          description: 'Prometheus text exposition format 0.0.4.',
          example: '# HELP paygate_deliveries_dead_total Deliveries given up\n',
        },
      },
      errors: {},
    },
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'openapi',
      tag: 'Health',
      summary: 'This document',
      security: 'none',
      ok: { 200: { schema: 'OpenApiDocument', description: 'OpenAPI 3.1.' } },
      errors: {},
    },
    {
      method: 'get',
      path: '/',
      operationId: 'root',
      tag: 'Dashboard',
      summary: 'Leads to the dashboard: 302 with Location /dashboard',
      security: 'none',
      ok: {
        302: {
          text: 'text/plain',
          description: 'A redirect to `/dashboard` (the `Location` header); no body.',
          example: '',
        },
      },
      errors: {},
    },
    {
      method: 'get',
      path: '/dashboard',
      operationId: 'dashboard',
      tag: 'Dashboard',
      summary: "The operator's single-page dashboard (built by npm run build)",
      security: 'none',
      ok: { 200: { text: 'text/html', description: 'The page.', example: '<!doctype html>' } },
      errors: E.DASHBOARD,
    },
    {
      method: 'get',
      path: '/dashboard/{path}',
      operationId: 'dashboardFile',
      tag: 'Dashboard',
      summary: "A file of the dashboard's build, or its page for any other path",
      security: 'none',
      parameters: [
        {
          name: 'path',
          in: 'path',
          required: true,
          schema: { type: 'string' },
          description: 'The rest of the path (it may contain slashes).',
        },
      ],
      ok: {
        200: {
          text: '*/*',
          description: 'The file (its own type), or the page as text/html.',
          example: '<!doctype html>',
        },
      },
      errors: E.DASHBOARD,
    },
  ];
}

// --------------------------------------------------------------------------- rendering

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
}

/** The text/plain answer of one status: its exact bodies and patterns, with examples. */
function textResponse(status: number, bodies: readonly ErrorBody[]): Json {
  const fixed = bodies.filter((b): b is string => typeof b === 'string');
  const templated = bodies.filter((b) => typeof b !== 'string');
  const alternatives: Json[] = [];
  if (fixed.length > 0) alternatives.push({ enum: fixed });
  for (const b of templated) alternatives.push({ pattern: b.pattern, description: b.description });
  const examples: Json = {};
  for (const b of bodies) {
    const value = typeof b === 'string' ? b : b.example;
    let key = slug(value) || 'body';
    for (let i = 2; key in examples; i++) key = `${slug(value)}-${i}`;
    examples[key] = { value };
  }
  const listed = bodies.map((b) => `\`${typeof b === 'string' ? b : b.description}\``).join(', ');
  const response: Json = {
    description: `Plain text, exactly one of: ${listed}.`,
    content: {
      'text/plain': {
        schema: {
          type: 'string',
          ...(alternatives.length === 1 ? alternatives[0] : { anyOf: alternatives }),
        },
        examples,
      },
    },
  };
  if (status === 503 || status === 429) {
    response.headers = {
      'Retry-After': {
        description: 'Seconds to wait before retrying.',
        schema: { type: 'integer', minimum: 1 },
      },
    };
  }
  return response;
}

function requestBody(body: NonNullable<Operation['body']>): Json {
  return {
    required: body.required,
    content: {
      'application/json': {
        schema: body.spec.schema,
        examples: { example: { value: body.example } },
      },
    },
  };
}

function securityOf(s: Security): Json[] {
  if (s === 'app') return [{ payKey: [], payTimestamp: [], paySignature: [] }];
  if (s === 'admin') return [{ adminToken: [] }, { operatorToken: [] }, { sessionCookie: [] }];
  return [];
}

/**
 * An admin route's refusals by role (src/auth/roles.ts, the matrix the guard reads): 403 for
 * the roles below its least one, and the CSRF 403 of a change made with the session cookie.
 */
function roleErrors(op: Operation): E.ErrorTable {
  const allowed = rolesFor(op.method, op.path);
  const refused = ROLES.filter((r) => !allowed.includes(r));
  const rule = ruleFor(op.method, op.path);
  return E.merge(
    E.ADMIN_AUTH,
    refused.length > 0 ? E.forbidden(rule.action, refused) : {},
    op.method === 'get' ? {} : E.CSRF,
  );
}

function renderOperation(op: Operation): Json {
  const responses: Json = {};
  const errors = E.merge(
    E.HTTP_LAYER,
    op.security === 'app' ? E.APP_AUTH : op.security === 'admin' ? roleErrors(op) : {},
    op.errors,
    op.path === '/healthz' ? {} : E.EVERY_ROUTE,
  );
  const statuses = [...Object.keys(op.ok).map(Number), ...Object.keys(errors).map(Number)].sort(
    (a, b) => a - b,
  );
  for (const status of statuses) {
    const ok = op.ok[status];
    if (ok && 'schema' in ok) {
      const media: Json = { schema: { $ref: `#/components/schemas/${ok.schema}` } };
      if (ok.example !== undefined) media.examples = { example: { value: ok.example } };
      responses[status] = {
        description: ok.description,
        content: { 'application/json': media },
      };
    } else if (ok && 'empty' in ok) {
      responses[status] = { description: ok.description };
    } else if (ok) {
      responses[status] = {
        description: ok.description,
        content: {
          [ok.text]: { schema: { type: 'string' }, examples: { example: { value: ok.example } } },
        },
      };
    } else {
      responses[status] = textResponse(status, errors[status] ?? []);
    }
  }
  const roles = op.security === 'admin' ? rolesFor(op.method, op.path) : [];
  const rolesText =
    roles.length > 0
      ? `Roles: ${roles.join(', ')}${ruleFor(op.method, op.path).orSelf ? ' (any role for their own account)' : ''}; and ADMIN_TOKEN.`
      : '';
  const description = [op.description, rolesText].filter(Boolean).join('\n\n');
  const out: Json = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(description ? { description } : {}),
    security: securityOf(op.security),
    ...(roles.length > 0 ? { 'x-roles': roles } : {}),
  };
  if (op.parameters?.length) out.parameters = op.parameters;
  if (op.body) out.requestBody = requestBody(op.body);
  if (op.rawBody) {
    out.requestBody = {
      required: true,
      description: op.rawBody.description,
      content: {
        [op.rawBody.contentType ?? 'application/json']: {
          schema: { type: op.rawBody.contentType ? 'string' : 'object' },
        },
      },
    };
  }
  out.responses = responses;
  return out;
}

/** The outbound webhooks to apps, one per event kind (docs/api.md#outbound-webhooks). */
function webhooks(): Json {
  const out: Json = {};
  const headers: Param[] = [
    {
      name: 'X-PAY-Timestamp',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^[0-9]+$' },
      description: 'Unix seconds of this attempt.',
    },
    {
      name: 'X-PAY-Signature',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      description:
        "Lowercase hex HMAC-SHA256 of `<X-PAY-Timestamp>.<raw body>`, keyed with the app's webhook_secret as issued (docs/api.md#webhook-signing). Verify over the raw bytes, in constant time.",
    },
    {
      name: 'X-PAY-Event-Id',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^evt_[0-9a-f]{24}$' },
      description: 'The same for every attempt of one event: dedupe on it.',
    },
    {
      name: 'X-PAY-Signature-Next',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      description:
        'Only during a secret rotation window (grace_hours): the same signature under the new secret, while X-PAY-Signature stays under the old one. Accept either.',
    },
  ];
  for (const [schema, kinds] of Object.entries(EVENT_KINDS)) {
    for (const kind of kinds) {
      // dispute.* go only to the webhook endpoints subscribed to them, never to webhook_url.
      const where = isDeliveredEventType(kind)
        ? "the app's webhook_url and the endpoints subscribed to it"
        : 'the webhook endpoints subscribed to it (never to webhook_url)';
      out[kind] = {
        post: {
          operationId: `webhook_${kind.replace('.', '_')}`,
          tags: ['Outbound webhooks'],
          summary: `${kind}, posted to ${where}`,
          description:
            'Delivered at least once, in no guaranteed order (docs/api.md#delivery-and-retries).',
          parameters: headers,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: `#/components/schemas/${schema}` },
                    { properties: { event: { const: kind } } },
                  ],
                },
                examples: { example: { value: EXAMPLES.event(kind) } },
              },
            },
          },
          responses: {
            '2XX': { description: 'Delivered; the body is not read.' },
            '4XX': { description: 'Dead at once: a broken handler; no more attempts.' },
            '5XX': { description: 'Retried on the schedule, dead after the last attempt.' },
          },
        },
      };
    }
  }
  return out;
}

/** The whole document; deterministic (no dates, no environment). */
export function buildOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const op of operations()) {
    paths[op.path] ??= {};
    (paths[op.path] as Json)[op.method] = renderOperation(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Paygate API',
      version: 'v1',
      description:
        'A multi-tenant payment gateway. Every status and plain-text error body here is exact (docs/api.md#errors). Successful answers are JSON (application/json; charset=utf-8); every error is text/plain; charset=utf-8. Any other path or method is answered 404 `not found` (see x-unknown-route).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: 'http://localhost:8080', description: 'The default PORT' }],
    tags: [
      'Payments',
      'Refunds',
      'Events',
      'Provider webhooks',
      'Admin: apps',
      'Admin: webhook endpoints',
      'Admin: payments',
      'Admin: reports',
      'Admin: reconciliation',
      'Admin: deliveries',
      'Admin: operations',
      'Admin: operators',
      'Sign-in',
      'Health',
      'Dashboard',
      'Outbound webhooks',
    ].map((name) => ({ name })),
    paths,
    webhooks: webhooks(),
    components: {
      schemas: RESPONSE_SCHEMAS,
      securitySchemes: {
        payKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-PAY-Key',
          description: "The app's api_key (pk_...). One of the three request-signing headers.",
        },
        payTimestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-PAY-Timestamp',
          description: "Unix seconds, an integer within 300 seconds of the gateway's clock.",
        },
        paySignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-PAY-Signature',
          description:
            "Lowercase hex HMAC-SHA256 of `<timestamp>.<METHOD>.<path without query>.<hex SHA-256 of the raw body>`, keyed with the app's signing_secret as issued (docs/api.md#request-signing).",
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <ADMIN_TOKEN>, the operator-configured break-glass token (docs/api.md#admin-token); audited as root; every route. Can be turned off (PATCH /admin/admin-token).',
        },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "Authorization: Bearer pgo_..., an operator's personal API token (docs/api.md#operators); the operator's role decides the routes (x-roles).",
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'paygate_session',
          description:
            "The dashboard's session after OpenID Connect sign-in (__Host-paygate_session behind https); requests that change something also need its X-CSRF-Token header (from GET /admin/me).",
        },
      },
    },
    'x-unknown-route': {
      description:
        "Any path or method not listed here is answered 404 not found (a path under /v1/payments/ or /admin/payments/ that does not percent-decode: 404 payment not found, whatever the method). Before routing, any request may also get the HTTP layer's own answers, and 503 while an instance starts or drains. All in text/plain; charset=utf-8.",
      answers: [
        // A payment path that does not percent-decode is refused before routing, any method.
        { ...errorReply('payment_not_found'), pathPattern: PAYMENT_ID_PATH.source },
        ...Object.entries(E.UNROUTED).flatMap(([status, bodies]) =>
          (bodies ?? []).map((body) => ({ status: Number(status), body })),
        ),
      ],
    },
  };
}
