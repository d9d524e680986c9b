/**
 * Operator actions on payments, exceptions and disputes, and the delivery and inbound
 * archives (docs/api.md#admin-api), behind the admin guard.
 */
import { parseListLimit } from '../../domain/adminQuery.js';
import { apiError } from '../../domain/errors.js';
import { ADMIN_REFUND, PARAMS, RESOLVE_EXCEPTION } from '../../domain/schemas.js';
import { serviceDeps } from '../../gateway.js';
import { adminCancel } from '../../services/payments/cancel.js';
import { listDeliveries, retryWebhook } from '../../services/deliveries.js';
import { getDispute, listDisputes } from '../../services/disputes.js';
import { listExceptions, resolveException } from '../../services/exceptions.js';
import { listInboundEvents } from '../../services/inboundArchive.js';
import { adminRefund } from '../../services/refunds/admin.js';
import { syncPayment } from '../../services/payments/sync.js';
import * as E from '../openapi/errors.js';
import { EXAMPLES } from '../openapi/examples.js';
import {
  ID_PARAM,
  IDEMPOTENCY_PARAM,
  LIMIT,
  MODE,
  PAYMENT_ID_PARAM,
  q,
} from '../openapi/params.js';
import { header, jsonBody, rawBody, sendJson } from '../reply.js';
import { defineRoutes, params } from './route.js';
import { requestAudit } from './adminGuard.js';
import type { Query } from './query.js';

const noGeneric = { types: false, lengths: false, missing: false };

export const paymentActionRoutes = defineRoutes(
  [
    {
      method: 'post',
      path: '/admin/payments/{payment_id}/cancel',
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
      path: '/admin/payments/{payment_id}/refund',
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
      path: '/admin/payments/{payment_id}/retry-webhook',
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
      path: '/admin/payments/{payment_id}/sync',
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
      parameters: [ID_PARAM],
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
      parameters: [ID_PARAM],
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
        E.bodyRules(RESOLVE_EXCEPTION, noGeneric),
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
  ],
  ({ gw }) => {
    const deps = serviceDeps(gw);
    const paymentId = (req: Parameters<typeof params>[0]) => params(req).payment_id as string;
    const id = (req: Parameters<typeof params>[0]) => params(req).id as string;
    // These read the query as Fastify parsed it (a repeated parameter is an array).
    const query = (req: Parameters<typeof params>[0]) => req.query as Query;
    return {
      cancelPayment: async (req, reply) => {
        const audit = requestAudit(req, 'payment.cancel');
        const res = await adminCancel({ ...deps, audit }, paymentId(req));
        return sendJson(reply, res.status, res.body);
      },
      adminRefund: async (req, reply) => {
        const res = await adminRefund(
          { ...deps, audit: requestAudit(req, 'payment.refund') },
          paymentId(req),
          rawBody(req),
          header(req, 'idempotency-key'),
        );
        return sendJson(reply, res.status, res.body);
      },
      retryWebhook: async (req, reply) =>
        sendJson(
          reply,
          202,
          await retryWebhook(gw.pool, paymentId(req), requestAudit(req, 'payment.retry_webhook')),
        ),
      syncPayment: async (req, reply) =>
        sendJson(
          reply,
          200,
          await syncPayment(serviceDeps(gw), paymentId(req), requestAudit(req, 'payment.sync')),
        ),
      listExceptions: async (req, reply) =>
        sendJson(reply, 200, await listExceptions(gw.pool, query(req))),
      listDisputes: async (req, reply) =>
        sendJson(reply, 200, await listDisputes(gw.pool, query(req))),
      getDispute: async (req, reply) => sendJson(reply, 200, await getDispute(gw.pool, id(req))),
      resolveException: async (req, reply) =>
        sendJson(
          reply,
          200,
          await resolveException(
            gw.pool,
            id(req),
            jsonBody(req),
            requestAudit(req, 'exception.resolve'),
          ),
        ),
      listDeliveries: async (req, reply) => {
        const status = query(req).status ?? null;
        const statuses: readonly string[] = PARAMS.deliveryStatus.enum;
        if (status !== null && !statuses.includes(status)) {
          throw apiError('invalid', `status must be one of ${statuses.join(', ')}`);
        }
        const limit = parseListLimit(query(req).limit);
        return sendJson(reply, 200, { deliveries: await listDeliveries(gw.pool, status, limit) });
      },
      listInboundEvents: async (req, reply) =>
        sendJson(reply, 200, {
          events: await listInboundEvents(gw.pool, query(req).payment_id ?? null, req.log),
        }),
    };
  },
);
