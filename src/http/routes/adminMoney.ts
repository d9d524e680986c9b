/** Balances, the ledger and payouts (docs/api.md#ledger), behind the admin guard. */
import { payoutWindow } from '../../domain/adminQuery.js';
import { CURRENCY_EXPONENT } from '../../domain/money.js';
import { PARAMS } from '../../domain/schemas.js';
import { LEDGER_TYPES, PROVIDERS } from '../../domain/types.js';
import type { Gateway } from '../../gateway.js';
import { balances, payouts, type ReportDeps } from '../../services/balances.js';
import { listLedger } from '../../services/ledger.js';
import * as E from '../openapi/errors.js';
import { EXAMPLES } from '../openapi/examples.js';
import { LIMIT, MODE, q } from '../openapi/params.js';
import { sendJson } from '../reply.js';
import { defineRoutes } from './route.js';
import { one } from './query.js';

function reportDeps(gw: Gateway): ReportDeps {
  return {
    pool: gw.pool,
    providers: gw.providers,
    providerTimeoutMs: gw.config.providerTimeoutMs,
    log: gw.log,
    now: gw.now,
  };
}

export const moneyRoutes = defineRoutes(
  [
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
  ],
  ({ gw }) => {
    const deps = reportDeps(gw);
    return {
      balances: async (_req, reply) => sendJson(reply, 200, await balances(deps)),
      listLedger: async (req, reply) => {
        const body = await listLedger(gw.pool, {
          limit: one(req, 'limit'),
          before: one(req, 'before'),
          provider: one(req, 'provider'),
          currency: one(req, 'currency'),
          app_id: one(req, 'app_id'),
          mode: one(req, 'mode'),
          type: one(req, 'type'),
          since: one(req, 'since'),
          until: one(req, 'until'),
        });
        return sendJson(reply, 200, body);
      },
    };
  },
);

export const payoutRoutes = defineRoutes(
  [
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
  ],
  ({ gw }) => {
    const deps = reportDeps(gw);
    return {
      payouts: async (req, reply) => {
        const w = payoutWindow(
          { since: one(req, 'since'), until: one(req, 'until') },
          new Date(gw.now()),
        );
        return sendJson(reply, 200, await payouts(deps, w.since, w.until));
      },
    };
  },
);
