/** Operator tools (issue 15): stuck work and the audit log, behind the admin guard. */
import { parseListLimit } from '../../domain/adminQuery.js';
import { PARAMS } from '../../domain/schemas.js';
import { AUDIT_ACTIONS, listAudit } from '../../services/audit.js';
import { listStuck } from '../../services/stuck.js';
import * as E from '../openapi/errors.js';
import { EXAMPLES } from '../openapi/examples.js';
import { LIMIT, q } from '../openapi/params.js';
import { sendJson } from '../reply.js';
import { defineRoutes } from './route.js';
import { one } from './query.js';

export const opsRoutes = defineRoutes(
  [
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
  ],
  ({ gw }) => ({
    listStuck: async (req, reply) =>
      sendJson(reply, 200, await listStuck(gw.pool, parseListLimit(one(req, 'limit')))),
    listAudit: async (req, reply) =>
      sendJson(
        reply,
        200,
        await listAudit(gw.pool, {
          limit: one(req, 'limit'),
          before: one(req, 'before'),
          action: one(req, 'action'),
          target_id: one(req, 'target_id'),
          actor: one(req, 'actor'),
        }),
      ),
  }),
);
