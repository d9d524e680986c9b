/** The OpenAPI operations of operator accounts, personal tokens and sign-in (docs/api.md#operators). */
import {
  CREATE_OPERATOR,
  CREATE_TOKEN,
  PATCH_ADMIN_TOKEN,
  PATCH_OPERATOR,
} from '../../auth/operatorSchemas.js';
import * as E from './errors.js';
import type { Operation, Param } from './types.js';

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

export function operatorOperations(): Operation[] {
  const tag = 'Admin: operators';
  return [
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
    // ---------------------------------------------------------------------------- sign-in
    {
      method: 'get',
      path: '/auth/methods',
      operationId: 'signInMethods',
      tag: 'Sign-in',
      summary: 'Whether single sign-on is configured (the dashboard shows its button)',
      security: 'none',
      ok: { 200: { schema: 'AuthMethods', description: 'The methods.', example: { oidc: true } } },
      errors: {},
    },
    {
      method: 'get',
      path: '/auth/oidc/start',
      operationId: 'signInStart',
      tag: 'Sign-in',
      summary: 'Starts an OpenID Connect sign-in: 302 to the identity provider (code flow, PKCE)',
      security: 'none',
      ok: {
        302: {
          text: 'text/plain',
          description: "A redirect to the identity provider's authorization endpoint; no body.",
          example: '',
        },
      },
      errors: E.fixed('not_found', 'too_many_failed_authentications'),
    },
    {
      method: 'get',
      path: '/auth/oidc/callback',
      operationId: 'signInCallback',
      tag: 'Sign-in',
      summary:
        'Where the identity provider returns: 302 to /dashboard with the session cookie, or 401',
      description:
        'The session cookie is HttpOnly, SameSite=Strict, Secure behind https; it ends after SESSION_IDLE_MINUTES unused or SESSION_MAX_HOURS, or at sign-out.',
      security: 'none',
      ok: {
        302: {
          text: 'text/plain',
          description: 'A redirect to /dashboard; no body.',
          example: '',
        },
      },
      errors: E.SIGN_IN_FAILED,
    },
    {
      method: 'post',
      path: '/auth/sign-out',
      operationId: 'signOut',
      tag: 'Sign-in',
      summary: 'Ends the dashboard session on the server (needs X-CSRF-Token)',
      security: 'none',
      ok: {
        204: { empty: true, description: 'Signed out (or there was no session); no body.' },
      },
      errors: E.merge(E.CSRF, E.WITH_BODY),
    },
  ];
}
