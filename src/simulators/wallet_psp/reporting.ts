/**
 * wallet_psp simulator reporting (PayPal style): GET /v1/reporting/balances and
 * GET /v1/reporting/transactions (payouts as T0400 withdrawals), plus the scripted
 * POST /payouts that makes a payout happen (the merchant's "withdraw to bank"; docs/api.md#test-mode: no
 * authentication like every scripted simulator route).
 *
 * The account of a client id holds what its orders captured, minus completed refunds, minus
 * payouts; per currency. The figures are computed from the simulator's own objects at each
 * call, so they agree with what the gateway saw settle.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from '../../db/pool.js';
import { listWalletMoneyObjects, listWalletPayouts } from '../../db/simObjects.js';
import { decimalToMinor, minorToDecimal } from '../../domain/money.js';
import type { SimulatorHost } from '../host.js';
import { jsonBody, sendJson, sendText } from '../reply.js';
import {
  WP_EVENT_WITHDRAWAL,
  WP_MAX_PAGE_SIZE,
  WP_MAX_SEARCH_DAYS,
  type WpBalancesResponse,
  type WpTransactionInfo,
  type WpTransactionsResponse,
  type WpTransactionStatus,
} from '../../providers/wallet_psp/reportingWire.js';
import { WP_CURRENCIES, type WpCapture } from '../../providers/wallet_psp/wire.js';
import { SimStore, type SimClock } from '../common.js';
import { simulatorEndpoint } from '../../providers/testMode.js';
import { apiError, providerId, providerTime, type SimOrder, type SimToken } from './orders.js';
import { listSimTransactions } from './transactions.js';
import type { SimCaptureRefunds } from './refunds.js';

const DAY_MS = 86_400_000;

export interface SimPayout {
  id: string;
  clientId: string;
  currency: string;
  amountMinor: number;
  status: WpTransactionStatus;
  createdAt: number;
}

export interface ReportingRouteDeps {
  gw: SimulatorHost;
  clock: SimClock;
  authorize(req: FastifyRequest, reply: FastifyReply): Promise<SimToken | null>;
}

/** Available money per currency of one client id: captured - refunded - paid out. */
export async function simBalances(pool: Pool, clientId: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const add = (currency: string, minor: number) =>
    out.set(currency, (out.get(currency) ?? 0) + minor);
  for (const { kind, data } of await listWalletMoneyObjects(pool, clientId)) {
    if (kind === 'order') {
      const capture: WpCapture | undefined = (data as SimOrder).order.purchase_units[0]?.payments
        ?.captures?.[0];
      if (!capture || !['COMPLETED', 'PARTIALLY_REFUNDED', 'REFUNDED'].includes(capture.status)) {
        continue;
      }
      const currency = capture.amount.currency_code;
      add(currency, decimalToMinor(capture.amount.value, currency) ?? 0);
    } else if (kind === 'capture_refunds') {
      for (const r of (data as SimCaptureRefunds).refunds) {
        if (r.refund.status === 'COMPLETED') add(r.refund.amount.currency_code, -r.amountMinor);
      }
    } else if (kind === 'payout') {
      const p = data as SimPayout;
      if (p.status === 'S' || p.status === 'P') add(p.currency, -p.amountMinor);
    }
  }
  return out;
}

/** A payout as the transaction search lists it: a T0400 withdrawal, money out. */
function payoutInfo(token: SimToken, p: SimPayout): WpTransactionInfo {
  return {
    paypal_account_id: token.clientId.slice(1, 14).toUpperCase(),
    transaction_id: p.id,
    transaction_event_code: WP_EVENT_WITHDRAWAL,
    transaction_initiation_date: providerTime(p.createdAt).replace('Z', '+0000'),
    transaction_updated_date: providerTime(p.createdAt).replace('Z', '+0000'),
    transaction_amount: {
      currency_code: p.currency,
      value: `-${minorToDecimal(p.amountMinor, p.currency)}`,
    },
    transaction_status: p.status,
  };
}

/**
 * The most items one search may find; more is refused as RESULTSET_TOO_LARGE. PayPal does not
 * publish its limit; the simulator's is this, so that clients are seen to split a window.
 */
export const WP_MAX_RESULT_SET = 10_000;

function parseProviderTime(v: string | undefined): number | null {
  if (!v) return null;
  const t = Date.parse(v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(t) ? null : t;
}

export function registerReportingRoutes(app: FastifyInstance, deps: ReportingRouteDeps): void {
  const { gw, clock, authorize } = deps;
  const payouts = new SimStore<SimPayout>(gw.pool, 'wallet_psp', 'payout');
  const testClientId = () =>
    simulatorEndpoint('wallet_psp', gw.config.masterKey, 'http://unused').credentials.clientId ??
    '';

  app.get('/v1/reporting/balances', async (req, reply) => {
    const token = await authorize(req, reply);
    if (!token) return reply;
    const balances = await simBalances(gw.pool, token.clientId);
    const now = providerTime(clock.now());
    const body: WpBalancesResponse = {
      balances: [...balances.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([currency, minor], i) => {
          const money = { currency_code: currency, value: minorToDecimal(minor, currency) };
          return {
            currency,
            primary: i === 0,
            total_balance: money,
            available_balance: money,
            withheld_balance: { currency_code: currency, value: minorToDecimal(0, currency) },
          };
        }),
      account_id: token.clientId.slice(1, 14).toUpperCase(),
      as_of_time: now,
      last_refresh_time: now,
    };
    return sendJson(reply, 200, body);
  });

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/v1/reporting/transactions',
    async (req, reply) => {
      const token = await authorize(req, reply);
      if (!token) return reply;
      const start = parseProviderTime(req.query.start_date);
      const end = parseProviderTime(req.query.end_date);
      if (start === null || end === null) {
        return sendJson(
          reply,
          400,
          apiError(400, {
            field: start === null ? 'start_date' : 'end_date',
            location: 'query',
            issue: 'INVALID_REQUEST',
            description: 'start_date and end_date are required date-times.',
          }).body,
        );
      }
      if (end < start || end - start > WP_MAX_SEARCH_DAYS * DAY_MS) {
        return sendJson(
          reply,
          400,
          apiError(400, {
            field: 'end_date',
            location: 'query',
            issue: 'INVALID_REQUEST',
            description: 'Date range is greater than 31 days',
          }).body,
        );
      }
      const pageSize = Math.min(Number(req.query.page_size ?? 100) || 100, WP_MAX_PAGE_SIZE);
      const page = Math.max(Number(req.query.page ?? 1) || 1, 1);
      const type = req.query.transaction_type;
      const payouts = await listWalletPayouts<SimPayout>(gw.pool, token.clientId);
      const history = [
        ...payouts.map((p) => ({ at: p.createdAt, info: payoutInfo(token, p) })),
        ...(await listSimTransactions(gw.pool, token.clientId)),
      ].sort((a, b) => a.at - b.at);
      const matching = history
        .filter((t) => t.at >= start && t.at < end + 1000)
        .filter((t) => type === undefined || type === t.info.transaction_event_code);
      if (matching.length > WP_MAX_RESULT_SET) {
        return sendJson(reply, 400, {
          name: 'RESULTSET_TOO_LARGE',
          message:
            'Result set size is greater than the maximum limit. Change the filter criteria and try again.',
          debug_id: providerId(13).toLowerCase(),
        });
      }
      const details = matching
        .slice((page - 1) * pageSize, page * pageSize)
        .map((t) => ({ transaction_info: t.info }));
      const body: WpTransactionsResponse = {
        transaction_details: details,
        account_number: token.clientId.slice(1, 14).toUpperCase(),
        start_date: providerTime(start).replace('Z', '+0000'),
        end_date: providerTime(end).replace('Z', '+0000'),
        last_refreshed_datetime: providerTime(clock.now()).replace('Z', '+0000'),
        page,
        total_items: matching.length,
        total_pages: Math.max(1, Math.ceil(matching.length / pageSize)),
      };
      return sendJson(reply, 200, body);
    },
  );

  // Scripted: pays out the available balance of a currency (or amount_minor of it) to the
  // merchant's bank, as of the simulator clock.
  app.post('/payouts', async (req, reply) => {
    const body = jsonBody(req) as { currency?: unknown; amount_minor?: unknown };
    if (typeof body !== 'object' || body === null) {
      return sendText(reply, 400, 'invalid JSON body');
    }
    const currency = body.currency;
    if (typeof currency !== 'string' || !(WP_CURRENCIES as readonly string[]).includes(currency)) {
      return sendText(reply, 400, `currency must be one of ${WP_CURRENCIES.join(', ')}`);
    }
    const clientId = testClientId();
    const available = (await simBalances(gw.pool, clientId)).get(currency) ?? 0;
    const amount = body.amount_minor === undefined ? available : body.amount_minor;
    if (!Number.isSafeInteger(amount) || (amount as number) <= 0) {
      return sendText(reply, 422, 'nothing to pay out: amount_minor must be a positive integer');
    }
    if ((amount as number) > available) {
      return sendText(reply, 422, `insufficient balance: ${available} ${currency} available`);
    }
    const payout: SimPayout = {
      id: providerId(17),
      clientId,
      currency,
      amountMinor: amount as number,
      status: 'S',
      createdAt: clock.now(),
    };
    await payouts.create(payout.id, payout);
    return sendJson(reply, 201, {
      id: payout.id,
      currency,
      amount_minor: payout.amountMinor,
      status: 'succeeded',
      initiated_at: new Date(payout.createdAt).toISOString(),
    });
  });
}
