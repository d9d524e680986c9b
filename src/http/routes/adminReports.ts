/**
 * The operator's read API (issue 5): thin handlers, parse -> service -> reply, behind the
 * admin guard.
 */
import { parseDays, parseListLimit, reportWindow, resolveMode } from '../../domain/adminQuery.js';
import { serialize } from '../../domain/serialize.js';
import { parsePaymentSearch } from '../../domain/paymentSearch.js';
import { PARAMS } from '../../domain/schemas.js';
import { listPayments, listRefunds } from '../../services/reports/lists.js';
import { getPaymentDetail } from '../../services/reports/paymentDetail.js';
import { summary, timeseries } from '../../services/reports/summary.js';
import * as E from '../openapi/errors.js';
import { EXAMPLES } from '../openapi/examples.js';
import { LIMIT, MODE, PAYMENT_ID_PARAM, q } from '../openapi/params.js';
import { sendJson } from '../reply.js';
import { defineRoutes, params } from './route.js';
import { one } from './query.js';

function optional(v: string | undefined): string | null {
  return v === undefined || v === '' ? null : v;
}

export const reportRoutes = defineRoutes(
  [
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
        q('before', { type: 'string' }, "The previous page's `next_before`."),
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
      path: '/admin/payments/{payment_id}',
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
  ],
  ({ gw }) => {
    const now = () => new Date(gw.now());
    return {
      summary: async (req, reply) => {
        const asOf = now();
        const w = reportWindow(
          { days: one(req, 'days'), since: one(req, 'since'), until: one(req, 'until') },
          asOf,
        );
        const body = await summary(gw.pool, w, resolveMode(one(req, 'mode')), asOf);
        return sendJson(reply, 200, body);
      },
      timeseries: async (req, reply) => {
        const days = parseDays(one(req, 'days'));
        const body = await timeseries(gw.pool, days, resolveMode(one(req, 'mode')), now());
        return sendJson(reply, 200, body);
      },
      listPayments: async (req, reply) => {
        const body = await listPayments(gw.pool, {
          mode: resolveMode(one(req, 'mode')),
          status: optional(one(req, 'status')),
          before: optional(one(req, 'before')),
          limit: parseListLimit(one(req, 'limit')),
          search: parsePaymentSearch({
            q: one(req, 'q'),
            app_id: one(req, 'app_id'),
            created_from: one(req, 'created_from'),
            created_to: one(req, 'created_to'),
            amount_min: one(req, 'amount_min'),
            amount_max: one(req, 'amount_max'),
          }),
        });
        return sendJson(reply, 200, body);
      },
      listRefunds: async (req, reply) => {
        const body = await listRefunds(gw.pool, {
          mode: resolveMode(one(req, 'mode')),
          before: optional(one(req, 'before')),
          limit: parseListLimit(one(req, 'limit')),
        });
        return sendJson(reply, 200, serialize('RefundList', body));
      },
      getPaymentDetail: async (req, reply) => {
        const detail = await getPaymentDetail(gw.pool, params(req).payment_id as string);
        return sendJson(reply, 200, serialize('PaymentDetail', detail));
      },
    };
  },
);
