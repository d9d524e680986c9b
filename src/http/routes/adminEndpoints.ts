/**
 * Webhook endpoints of an app (docs/api.md#webhook-endpoints) and the bulk redelivery of an
 * app's events, behind the admin guard.
 */
import {
  CREATE_ENDPOINT,
  PATCH_ENDPOINT,
  RECOVER,
  ROTATE,
  STATS_DAYS,
} from '../../domain/endpointSchemas.js';
import { apiError } from '../../domain/errors.js';
import { integerParamMessage, REDELIVER } from '../../domain/schemas.js';
import {
  createEndpoint,
  disableEndpoint,
  listAppEndpoints,
  patchEndpoint,
  recoverEndpoint,
  rotateSecret,
  type EndpointDeps,
} from '../../services/endpoints.js';
import { getEndpointStats } from '../../services/endpointHealth.js';
import { redeliverAppEvents } from '../../services/events.js';
import * as E from '../openapi/errors.js';
import { EXAMPLES } from '../openapi/examples.js';
import { APP_ID_PARAM } from '../openapi/params.js';
import type { Param } from '../openapi/types.js';
import { jsonBody, sendJson } from '../reply.js';
import { defineRoutes, params } from './route.js';
import { requestAudit } from './adminGuard.js';

const APP_ID = APP_ID_PARAM;
const ENDPOINT_ID: Param = {
  name: 'endpoint_id',
  in: 'path',
  required: true,
  schema: { type: 'string', examples: ['ep_3b9d0c1e5f7a2b4c6d8e0f12'] },
};
const TAG = 'Admin: webhook endpoints';
const BASE = '/admin/apps/{app_id}/endpoints';
const ONE = `${BASE}/{endpoint_id}`;
const NOT_FOUND = E.fixed('app_not_found', 'endpoint_not_found');
const noGeneric = { types: false, lengths: false, missing: false };

const AT = '2025-01-02T03:04:05.678Z';
const ENDPOINT = {
  endpoint_id: 'ep_3b9d0c1e5f7a2b4c6d8e0f12',
  app_id: 'app_1a7c63dbe650b204c67e4daf',
  url: 'https://finance.example.com/paygate',
  event_types: ['refund.succeeded', 'refund.failed'],
  description: 'Finance service',
  disabled: false,
  disabled_reason: null,
  rotates_at: null,
  failing_since: null,
  created_at: AT,
  updated_at: AT,
};
const SECRET = 'whsec_' + '5e'.repeat(32);

export const endpointRoutes = defineRoutes(
  [
    {
      method: 'post',
      path: BASE,
      operationId: 'createEndpoint',
      tag: TAG,
      summary: 'Add a webhook endpoint with an event filter; its secret is shown only here',
      security: 'admin',
      parameters: [APP_ID],
      body: {
        spec: CREATE_ENDPOINT,
        example: {
          url: ENDPOINT.url,
          event_types: ENDPOINT.event_types,
          description: ENDPOINT.description,
        },
        required: true,
      },
      ok: {
        201: {
          schema: 'CreatedEndpoint',
          description: 'Created.',
          example: {
            endpoint_id: ENDPOINT.endpoint_id,
            app_id: ENDPOINT.app_id,
            url: ENDPOINT.url,
            event_types: ENDPOINT.event_types,
            description: ENDPOINT.description,
            secret: SECRET,
            disabled: false,
            created_at: AT,
          },
        },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(CREATE_ENDPOINT),
        E.fixed('app_not_found'),
        E.WITH_BODY,
        E.LONG_PARAM,
      ),
    },
    {
      method: 'get',
      path: BASE,
      operationId: 'listEndpoints',
      tag: TAG,
      summary: "An app's webhook endpoints, oldest first, disabled ones included",
      security: 'admin',
      parameters: [APP_ID],
      ok: {
        200: {
          schema: 'EndpointList',
          description: 'Without secrets.',
          example: { endpoints: [ENDPOINT] },
        },
      },
      errors: E.merge(E.fixed('app_not_found'), E.LONG_PARAM),
    },
    {
      method: 'patch',
      path: ONE,
      operationId: 'updateEndpoint',
      tag: TAG,
      summary: "Change an endpoint's url, event_types, description, or enable/disable it",
      security: 'admin',
      parameters: [APP_ID, ENDPOINT_ID],
      body: { spec: PATCH_ENDPOINT, example: { event_types: ['*'] }, required: false },
      ok: {
        200: { schema: 'Endpoint', description: 'The endpoint.', example: ENDPOINT },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(PATCH_ENDPOINT, { missing: false }),
        NOT_FOUND,
        E.WITH_BODY,
        E.LONG_PARAM,
      ),
    },
    {
      method: 'delete',
      path: ONE,
      operationId: 'disableEndpoint',
      tag: TAG,
      summary: 'Disable an endpoint; it stays listed with its deliveries and attempts',
      security: 'admin',
      parameters: [APP_ID, ENDPOINT_ID],
      ok: {
        200: {
          schema: 'Endpoint',
          description: 'The endpoint, disabled.',
          example: { ...ENDPOINT, disabled: true, disabled_reason: 'disabled by an operator' },
        },
      },
      errors: E.merge(NOT_FOUND, E.WITH_BODY, E.LONG_PARAM),
    },
    {
      method: 'post',
      path: `${ONE}/rotate-secret`,
      operationId: 'rotateEndpointSecret',
      tag: TAG,
      summary: 'A new secret, with an optional window in which both sign',
      security: 'admin',
      parameters: [APP_ID, ENDPOINT_ID],
      body: { spec: ROTATE, example: { grace_hours: 24 }, required: false },
      ok: {
        200: {
          schema: 'RotatedSecret',
          description: 'The new secret, shown only here.',
          example: { endpoint_id: ENDPOINT.endpoint_id, secret: SECRET, rotates_at: AT },
        },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(ROTATE, noGeneric),
        NOT_FOUND,
        E.WITH_BODY,
        E.LONG_PARAM,
      ),
    },
    {
      method: 'post',
      path: `${ONE}/recover`,
      operationId: 'recoverEndpoint',
      tag: TAG,
      summary: 'Re-send every event since a time that the endpoint did not get',
      security: 'admin',
      parameters: [APP_ID, ENDPOINT_ID],
      body: { spec: RECOVER, example: { since: '2025-01-02T00:00:00Z' }, required: true },
      ok: {
        202: {
          schema: 'Redelivered',
          description: 'The number of fresh deliveries queued.',
          example: { deliveries: 3 },
        },
      },
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(RECOVER, { types: false, lengths: false }),
        NOT_FOUND,
        E.fixed('endpoint_disabled'),
        E.WITH_BODY,
        E.LONG_PARAM,
      ),
    },
    {
      method: 'get',
      path: `${ONE}/stats`,
      operationId: 'endpointStats',
      tag: TAG,
      summary: 'Attempts, success rate, latency percentiles and the latest attempts',
      security: 'admin',
      parameters: [APP_ID, ENDPOINT_ID, { name: 'days', in: 'query', schema: STATS_DAYS }],
      ok: {
        200: {
          schema: 'EndpointStats',
          description: 'Over attempts started in the last `days` days.',
          example: {
            endpoint_id: ENDPOINT.endpoint_id,
            days: 7,
            attempts: 4,
            delivered: 3,
            failed: 1,
            success_rate: 0.75,
            latency_ms: { p50: 12, p90: 40, p99: 40 },
            recent_attempts: [
              {
                delivery_id: 'dlv_1a7c63dbe650b204c67e4daf',
                event_id: 'evt_1a7c63dbe650b204c67e4daf',
                event_type: 'refund.succeeded',
                attempt: 1,
                started_at: AT,
                duration_ms: 12,
                status_code: 200,
                error: null,
                response_body: 'ok',
                outcome: 'delivered',
              },
            ],
          },
        },
      },
      errors: E.merge(
        E.invalidBodies(integerParamMessage('days', STATS_DAYS)),
        NOT_FOUND,
        E.LONG_PARAM,
      ),
    },
    {
      method: 'post',
      path: '/admin/apps/{app_id}/redeliver',
      operationId: 'redeliverAppEvents',
      tag: 'Admin: apps',
      summary: "Queue fresh deliveries of an app's events in [since, until)",
      security: 'admin',
      parameters: [APP_ID],
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
  ],
  ({ gw }) => {
    const deps: EndpointDeps = {
      db: gw.pool,
      masterKey: gw.config.masterKey,
      allowPrivateWebhookTargets: gw.config.allowPrivateWebhookTargets,
      resolveHost: gw.webhookNetwork.resolve,
    };
    const ids = (req: Parameters<typeof params>[0]) => {
      const p = params(req);
      return [p.app_id as string, p.endpoint_id as string] as const;
    };
    return {
      createEndpoint: async (req, reply) =>
        sendJson(
          reply,
          201,
          await createEndpoint(
            deps,
            params(req).app_id as string,
            jsonBody(req),
            requestAudit(req, 'endpoint.create'),
          ),
        ),
      listEndpoints: async (req, reply) =>
        sendJson(reply, 200, await listAppEndpoints(deps, params(req).app_id as string)),
      updateEndpoint: async (req, reply) =>
        sendJson(
          reply,
          200,
          await patchEndpoint(
            deps,
            ...ids(req),
            jsonBody(req),
            requestAudit(req, 'endpoint.update'),
          ),
        ),
      disableEndpoint: async (req, reply) =>
        sendJson(
          reply,
          200,
          await disableEndpoint(deps, ...ids(req), requestAudit(req, 'endpoint.disable')),
        ),
      rotateEndpointSecret: async (req, reply) =>
        sendJson(
          reply,
          200,
          await rotateSecret(
            deps,
            ...ids(req),
            jsonBody(req),
            requestAudit(req, 'endpoint.rotate_secret'),
          ),
        ),
      recoverEndpoint: async (req, reply) =>
        sendJson(
          reply,
          202,
          await recoverEndpoint(
            deps,
            ...ids(req),
            jsonBody(req),
            requestAudit(req, 'endpoint.recover'),
          ),
        ),
      endpointStats: async (req, reply) =>
        sendJson(
          reply,
          200,
          await getEndpointStats(deps, ...ids(req), (req.query as { days?: string }).days),
        ),
      redeliverAppEvents: async (req, reply) => {
        const body = jsonBody(req);
        if (typeof body === 'symbol') throw apiError('invalid_json');
        const res = await redeliverAppEvents(
          gw.pool,
          params(req).app_id as string,
          body,
          new Date(gw.now()),
          requestAudit(req, 'app.redeliver'),
        );
        return sendJson(reply, 202, res);
      },
    };
  },
);
