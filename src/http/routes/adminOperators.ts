/**
 * Operator accounts, personal tokens, the ADMIN_TOKEN switch, and who is asking
 * (docs/api.md#operators), behind the admin guard.
 */
import {
  CREATE_OPERATOR,
  CREATE_TOKEN,
  PATCH_ADMIN_TOKEN,
  PATCH_OPERATOR,
} from '../../auth/operatorSchemas.js';
import {
  createOperator,
  createToken,
  getAdminTokenSetting,
  getOperator,
  listOperators,
  listTokens,
  patchAdminTokenSetting,
  patchOperator,
  revokeToken,
} from '../../services/operators.js';
import * as E from '../openapi/errors.js';
import type { Param } from '../openapi/types.js';
import { jsonBody, sendJson } from '../reply.js';
import { defineRoutes, params } from './route.js';
import { actorOf, requestAudit } from './adminGuard.js';

const OPERATOR_ID: Param = {
  name: 'operator_id',
  in: 'path',
  required: true,
  schema: { type: 'string', examples: ['op_5b1f0c7e9a2d4c6b8e0f1a2b'] },
};
const TOKEN_ID: Param = {
  name: 'token_id',
  in: 'path',
  required: true,
  schema: { type: 'string', examples: ['tok_0c9d8e7f6a5b4c3d2e1f0a9b'] },
};

const operator = {
  id: 'op_5b1f0c7e9a2d4c6b8e0f1a2b',
  email: 'ana@example.com',
  name: 'Ana Lim',
  role: 'support',
  disabled: false,
  created_at: '2025-01-02T03:04:05.678Z',
  updated_at: '2025-01-02T03:04:05.678Z',
};
const token = {
  id: 'tok_0c9d8e7f6a5b4c3d2e1f0a9b',
  operator_id: operator.id,
  name: 'nightly export',
  created_at: '2025-01-02T03:04:05.678Z',
  expires_at: '2025-04-02T03:04:05.678Z',
  revoked_at: null,
  last_used_at: null,
};

const body = (spec: Parameters<typeof E.bodyRules>[0]) =>
  E.merge(E.JSON_BODY, E.bodyRules(spec, { types: false, lengths: false }), E.WITH_BODY);

const tag = 'Admin: operators';

export const operatorRoutes = defineRoutes(
  [
    {
      method: 'get',
      path: '/admin/me',
      operationId: 'whoAmI',
      tag,
      summary: 'Who is asking: root (ADMIN_TOKEN) or an operator, and the CSRF token of a session',
      security: 'admin',
      ok: {
        200: {
          schema: 'Me',
          description: 'The actor.',
          example: {
            actor: operator.id,
            email: operator.email,
            name: operator.name,
            role: operator.role,
            token_name: null,
            csrf_token: null,
          },
        },
      },
      errors: {},
    },
    {
      method: 'get',
      path: '/admin/operators',
      operationId: 'listOperators',
      tag,
      summary: 'Operator accounts, oldest first',
      security: 'admin',
      ok: {
        200: {
          schema: 'OperatorList',
          description: 'The operators.',
          example: { operators: [operator] },
        },
      },
      errors: {},
    },
    {
      method: 'post',
      path: '/admin/operators',
      operationId: 'createOperator',
      tag,
      summary: 'Create an operator account',
      security: 'admin',
      body: {
        spec: CREATE_OPERATOR,
        example: { email: operator.email, name: operator.name, role: operator.role },
        required: true,
      },
      ok: { 201: { schema: 'Operator', description: 'The operator.', example: operator } },
      errors: E.merge(body(CREATE_OPERATOR), E.fixed('operator_exists')),
    },
    {
      method: 'get',
      path: '/admin/operators/{operator_id}',
      operationId: 'getOperator',
      tag,
      summary: 'One operator account',
      security: 'admin',
      parameters: [OPERATOR_ID],
      ok: { 200: { schema: 'Operator', description: 'The operator.', example: operator } },
      errors: E.merge(E.OPERATOR_NOT_FOUND, E.LONG_PARAM),
    },
    {
      method: 'patch',
      path: '/admin/operators/{operator_id}',
      operationId: 'updateOperator',
      tag,
      summary: "Change an operator's role, name, or disable the account",
      description:
        "Disabling ends the operator's sessions and stops their tokens at once. While ADMIN_TOKEN is off, the last enabled admin cannot be demoted or disabled (422).",
      security: 'admin',
      parameters: [OPERATOR_ID],
      body: { spec: PATCH_OPERATOR, example: { role: 'finance' }, required: false },
      ok: { 200: { schema: 'Operator', description: 'The operator.', example: operator } },
      errors: E.merge(
        body(PATCH_OPERATOR),
        E.OPERATOR_NOT_FOUND,
        E.fixed('last_admin'),
        E.LONG_PARAM,
      ),
    },
    {
      method: 'get',
      path: '/admin/operators/{operator_id}/tokens',
      operationId: 'listOperatorTokens',
      tag,
      summary: "An operator's personal API tokens, newest first, without their secrets",
      security: 'admin',
      parameters: [OPERATOR_ID],
      ok: {
        200: {
          schema: 'OperatorTokenList',
          description: 'The tokens.',
          example: { tokens: [token] },
        },
      },
      errors: E.merge(E.OPERATOR_NOT_FOUND, E.LONG_PARAM),
    },
    {
      method: 'post',
      path: '/admin/operators/{operator_id}/tokens',
      operationId: 'createOperatorToken',
      tag,
      summary: 'A personal API token (prefix pgo_), shown once; an operator may make their own',
      security: 'admin',
      parameters: [OPERATOR_ID],
      body: {
        spec: CREATE_TOKEN,
        example: { name: token.name, expires_in_days: 90 },
        required: true,
      },
      ok: {
        201: {
          schema: 'NewOperatorToken',
          description: 'The token with its secret, this once.',
          example: { ...token, token: 'pgo_' + 'Q'.repeat(43) },
        },
      },
      errors: E.merge(body(CREATE_TOKEN), E.OPERATOR_NOT_FOUND, E.LONG_PARAM),
    },
    {
      method: 'post',
      path: '/admin/operators/{operator_id}/tokens/{token_id}/revoke',
      operationId: 'revokeOperatorToken',
      tag,
      summary:
        'Revoke a token: refused at once on every instance; an operator may revoke their own',
      security: 'admin',
      parameters: [OPERATOR_ID, TOKEN_ID],
      ok: {
        200: {
          schema: 'OperatorToken',
          description: 'The token, revoked (a second revocation keeps the first time).',
          example: { ...token, revoked_at: '2025-01-03T03:04:05.678Z' },
        },
      },
      errors: E.merge(E.OPERATOR_NOT_FOUND, E.TOKEN_NOT_FOUND, E.WITH_BODY, E.LONG_PARAM),
    },
    {
      method: 'get',
      path: '/admin/admin-token',
      operationId: 'getAdminTokenSetting',
      tag,
      summary: 'Whether ADMIN_TOKEN is accepted',
      security: 'admin',
      ok: {
        200: {
          schema: 'AdminTokenSetting',
          description: 'The setting.',
          example: { enabled: true },
        },
      },
      errors: {},
    },
    {
      method: 'patch',
      path: '/admin/admin-token',
      operationId: 'setAdminTokenSetting',
      tag,
      summary: 'Turn ADMIN_TOKEN off (or on again) on every instance',
      description:
        'Off only while an enabled admin operator exists (docs/operations.md#turning-admin_token-off).',
      security: 'admin',
      body: { spec: PATCH_ADMIN_TOKEN, example: { enabled: false }, required: true },
      ok: {
        200: {
          schema: 'AdminTokenSetting',
          description: 'The setting.',
          example: { enabled: false },
        },
      },
      errors: E.merge(body(PATCH_ADMIN_TOKEN), E.fixed('admin_token_needs_admin')),
    },
  ],
  ({ gw }) => {
    const now = () => new Date(gw.now());
    const operatorId = (req: Parameters<typeof params>[0]) => params(req).operator_id as string;
    return {
      whoAmI: async (req, reply) => {
        const a = actorOf(req);
        return sendJson(
          reply,
          200,
          a.kind === 'root'
            ? {
                actor: 'root',
                email: null,
                name: null,
                role: 'admin',
                token_name: null,
                csrf_token: null,
              }
            : {
                actor: a.id,
                email: a.email,
                name: a.name,
                role: a.role,
                token_name: a.tokenName,
                csrf_token: a.csrfToken,
              },
        );
      },
      listOperators: async (_req, reply) => sendJson(reply, 200, await listOperators(gw.pool)),
      createOperator: async (req, reply) =>
        sendJson(
          reply,
          201,
          await createOperator(gw.pool, jsonBody(req), requestAudit(req, 'operator.create')),
        ),
      getOperator: async (req, reply) =>
        sendJson(reply, 200, await getOperator(gw.pool, operatorId(req))),
      updateOperator: async (req, reply) =>
        sendJson(
          reply,
          200,
          await patchOperator(
            gw.pool,
            operatorId(req),
            jsonBody(req),
            requestAudit(req, 'operator.update'),
          ),
        ),
      listOperatorTokens: async (req, reply) =>
        sendJson(reply, 200, await listTokens(gw.pool, operatorId(req))),
      createOperatorToken: async (req, reply) =>
        sendJson(
          reply,
          201,
          await createToken(
            gw.pool,
            operatorId(req),
            jsonBody(req),
            now(),
            requestAudit(req, 'operator.token_create'),
          ),
        ),
      revokeOperatorToken: async (req, reply) =>
        sendJson(
          reply,
          200,
          await revokeToken(
            gw.pool,
            operatorId(req),
            params(req).token_id as string,
            now(),
            requestAudit(req, 'operator.token_revoke'),
          ),
        ),
      getAdminTokenSetting: async (_req, reply) =>
        sendJson(reply, 200, await getAdminTokenSetting(gw.pool)),
      setAdminTokenSetting: async (req, reply) =>
        sendJson(
          reply,
          200,
          await patchAdminTokenSetting(
            gw.pool,
            jsonBody(req),
            requestAudit(req, 'admin_token.update'),
          ),
        ),
    };
  },
);
