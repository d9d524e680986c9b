/** The apps' API under /v1 (docs/api.md#payments), signed with the app's key and secret. */
import type { FastifyRequest } from 'fastify';
import {
  authenticateApp,
  authenticateAppNow,
  type AuthenticatedApp,
  type SignedRequest,
} from '../../auth/appAuth.js';
import { CREATE_PAYMENT, CREATE_REFUND, PARAMS } from '../../domain/schemas.js';
import { serviceDeps, type Gateway } from '../../gateway.js';
import { createPayment } from '../../services/payments/create.js';
import { getPaymentBody } from '../../services/payments/read.js';
import { EVENTS_PAGE_MAX_BYTES, listAppEvents } from '../../services/events.js';
import { createRefund } from '../../services/refunds/create.js';
import * as E from '../openapi/errors.js';
import { EXAMPLES } from '../openapi/examples.js';
import { IDEMPOTENCY_PARAM, PAYMENT_ID_PARAM, q } from '../openapi/params.js';
import { header, markDurable, rawBody, requestPath, sendJson } from '../reply.js';
import { defineRoutes, params, type RouteHandler } from './route.js';
import { one } from './query.js';

function signedRequest(req: FastifyRequest): SignedRequest {
  return {
    method: req.method,
    path: requestPath(req),
    rawBody: rawBody(req),
    key: header(req, 'x-pay-key'),
    timestamp: header(req, 'x-pay-timestamp'),
    signature: header(req, 'x-pay-signature'),
  };
}

function appAuthenticator(gw: Gateway) {
  const lookup = (key: string) => gw.lookupAppKey(key);
  const mismatch =
    (req: FastifyRequest) =>
    (tenant: AuthenticatedApp['app'], canonical: string): void =>
      req.log.info(
        { app_id: tenant.id, canonical_string: canonical },
        'bad signature (test mode): the gateway signed canonical_string; compare it with the string you signed',
      );
  return {
    /** The signed POSTs and the event list. */
    authenticate: (req: FastifyRequest): Promise<AuthenticatedApp> =>
      authenticateApp(signedRequest(req), lookup, gw.now(), mismatch(req)),
    /**
     * The same checks, without a promise for a cached key (GET /v1/payments/{id}, the polled
     * route); a rule's 401 is thrown at once.
     */
    authenticateNow: (req: FastifyRequest): AuthenticatedApp | Promise<AuthenticatedApp> =>
      authenticateAppNow(signedRequest(req), lookup, gw.now(), mismatch(req)),
  };
}

export const v1Routes = defineRoutes(
  [
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
  ],
  ({ gw }) => {
    const { authenticate, authenticateNow } = appAuthenticator(gw);
    const paymentDeps = {
      ...serviceDeps(gw),
      idrPspDirectQr: gw.config.idrPspDirectQr,
      creations: gw.creations,
    };
    // Both signed POSTs: authenticate, run the idempotent use case, reply with its answer.
    const idempotent =
      (service: typeof createPayment | typeof createRefund): RouteHandler =>
      async (req, reply) => {
        const { app: tenant } = await authenticate(req);
        const res = await service(
          paymentDeps,
          tenant,
          rawBody(req),
          header(req, 'idempotency-key'),
        );
        if (res.durable) markDurable(req);
        return sendJson(reply, res.status, res.body);
      };
    return {
      createPayment: idempotent(createPayment),
      createRefund: idempotent(createRefund),
      listEvents: async (req, reply) => {
        const { app: tenant } = await authenticate(req);
        const body = await listAppEvents(gw.pool, tenant.id, {
          after: one(req, 'after'),
          limit: one(req, 'limit'),
        });
        return sendJson(reply, 200, body);
      },
      // Polled about once a second by every terminal: no promise unless the key or the
      // payment has to be read (a settled payment with a cached key is answered at once).
      getPayment: (req, reply) => {
        const auth = authenticateNow(req);
        const paymentId = params(req).payment_id as string;
        const answer = (tenant: AuthenticatedApp) => {
          const body = getPaymentBody(gw.paymentReads, gw.settledPayments, tenant.app, paymentId);
          if (typeof body === 'string') {
            sendJson(reply, 200, body);
            return undefined;
          }
          return body.then((text) => {
            sendJson(reply, 200, text);
          });
        };
        return auth instanceof Promise ? auth.then(answer) : answer(auth);
      },
    };
  },
);
