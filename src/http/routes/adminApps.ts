/** Apps and their keys (docs/api.md#apps), behind the admin guard. */
import { ROTATE } from '../../domain/endpointSchemas.js';
import { CREATE_APP, PATCH_APP } from '../../domain/schemas.js';
import {
  createApp,
  listApps,
  patchApp,
  regenerateKeys,
  type AppServiceDeps,
} from '../../services/apps.js';
import { parseGraceHours } from '../../services/endpoints.js';
import * as E from '../openapi/errors.js';
import { EXAMPLES } from '../openapi/examples.js';
import { APP_ID_PARAM } from '../openapi/params.js';
import { jsonBody, sendJson } from '../reply.js';
import { defineRoutes, params } from './route.js';
import { requestAudit } from './adminGuard.js';

const noGeneric = { types: false, lengths: false, missing: false };

export const appRoutes = defineRoutes(
  [
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
      errors: E.merge(E.JSON_BODY, E.bodyRules(CREATE_APP, noGeneric), E.APP_RULES, E.WITH_BODY),
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
        E.bodyRules(PATCH_APP, noGeneric),
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
      errors: E.merge(
        E.JSON_BODY,
        E.bodyRules(ROTATE, noGeneric),
        E.APP_NOT_FOUND,
        E.WITH_BODY,
        E.LONG_PARAM,
      ),
    },
  ],
  ({ gw }) => {
    const apps: AppServiceDeps = {
      db: gw.pool,
      masterKey: gw.config.masterKey,
      allowPrivateWebhookTargets: gw.config.allowPrivateWebhookTargets,
      resolveHost: gw.webhookNetwork.resolve,
      onAppChanged: (appId) => gw.appChanged(appId),
    };
    return {
      listApps: async (_req, reply) => sendJson(reply, 200, { apps: await listApps(apps) }),
      createApp: async (req, reply) =>
        sendJson(reply, 201, await createApp(apps, jsonBody(req), requestAudit(req, 'app.create'))),
      updateApp: async (req, reply) =>
        sendJson(
          reply,
          200,
          await patchApp(
            apps,
            params(req).app_id as string,
            jsonBody(req),
            requestAudit(req, 'app.update'),
          ),
        ),
      regenerateAppKeys: async (req, reply) =>
        sendJson(
          reply,
          200,
          await regenerateKeys(
            apps,
            params(req).app_id as string,
            parseGraceHours(jsonBody(req)),
            requestAudit(req, 'app.regenerate_keys'),
          ),
        ),
    };
  },
);
