import { randomInt } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decimalToMinor, minorToDecimal } from '../../money.js';
import type { WpDispute, WpCapture, WpOrder } from '../wire.js';
import { rawBody, sendJson, sendText } from '../../reply.js';
import { replyToAction, SimStore, type ActionResult } from '../../common.js';
import { faultsFor } from '../../faults.js';
import type { WalletRouteContext } from '../context.js';
import { scenarioOfOrder } from '../faults.js';
import { apiError, orderCapture, providerTime } from '../orders.js';
import { sendApiError } from '../protocol.js';

/** A dispute as the simulated provider keeps it: the API's view and who owns it. */
interface SimDispute {
  dispute: WpDispute;
  clientId: string;
  orderId: string;
}

/** sim_objects kind 'order_dispute': an order's one dispute. */
interface SimOrderDispute {
  disputeId: string;
}

/** sim_objects kind 'capture_dispute': the case of a capture (the dispute list's filter). */
interface SimCaptureDispute {
  disputeId: string;
}

/** How long the merchant has to answer a new case (PayPal gives 10 days in an inquiry). */
const RESPONSE_DAYS = 10;

const DISPUTE_ACTIONS = ['dispute', 'dispute_won', 'dispute_lost'] as const;

/**
 * Disputes and reversals (D16) of the wallet provider: the scripted actions
 * POST /payments/<order id>/reverse | dispute | dispute_won | dispute_lost, each sending the
 * provider's own webhook (PAYMENT.CAPTURE.REVERSED, CUSTOMER.DISPUTE.CREATED,
 * CUSTOMER.DISPUTE.RESOLVED), and the dispute API the gateway confirms them with,
 * GET /v1/customer/disputes/{id} (PayPal Disputes v1).
 */
export function registerDisputeRoutes(app: FastifyInstance, ctx: WalletRouteContext): void {
  const { gw, clock, sim, authorize, deliver, pageUrl } = ctx;
  const { orders } = sim;
  const disputes = new SimStore<SimDispute>(gw.pool, 'wallet_psp', 'dispute');
  const byOrder = new SimStore<SimOrderDispute>(gw.pool, 'wallet_psp', 'order_dispute');
  const byCapture = new SimStore<SimCaptureDispute>(gw.pool, 'wallet_psp', 'capture_dispute');

  // The dispute list filtered by the disputed transaction (PayPal Disputes v1,
  // GET /v1/customer/disputes?disputed_transaction_id=): the capture's case, as a summary.
  app.get<{ Querystring: { disputed_transaction_id?: string } }>(
    '/v1/customer/disputes',
    async (req, reply) => {
      const token = await authorize(req, reply);
      if (!token) return reply;
      const captureId = req.query.disputed_transaction_id ?? '';
      const pointer = captureId ? await byCapture.get(captureId) : null;
      const found = pointer ? await disputes.get(pointer.disputeId) : null;
      const items =
        found && found.clientId === token.clientId
          ? [
              {
                dispute_id: found.dispute.dispute_id,
                create_time: found.dispute.create_time,
                update_time: found.dispute.update_time,
                reason: found.dispute.reason,
                status: found.dispute.status,
                dispute_amount: found.dispute.dispute_amount,
                dispute_life_cycle_stage: found.dispute.dispute_life_cycle_stage,
                dispute_channel: found.dispute.dispute_channel,
                links: [],
              },
            ]
          : [];
      return sendJson(reply, 200, { items, links: [] });
    },
  );

  app.get<{ Params: { id: string } }>('/v1/customer/disputes/:id', async (req, reply) => {
    const token = await authorize(req, reply);
    if (!token) return reply;
    const found = await disputes.get(req.params.id);
    if (!found || found.clientId !== token.clientId) {
      return sendApiError(
        reply,
        apiError(404, {
          field: 'dispute_id',
          value: req.params.id,
          location: 'path',
          issue: 'INVALID_RESOURCE_ID',
          description: 'Requested resource ID was not found.',
        }),
      );
    }
    return sendJson(reply, 200, found.dispute);
  });

  const back = (order: WpOrder) => {
    const returnUrl = order.payment_source?.paypal?.experience_context?.return_url;
    return { pageUrl: pageUrl(order.id), ...(returnUrl ? { returnUrl } : {}) };
  };

  async function answer(
    req: FastifyRequest,
    reply: FastifyReply,
    order: WpOrder,
    send: () => Promise<ActionResult>,
    intermediate?: () => Promise<ActionResult>,
  ): Promise<FastifyReply> {
    let result: ActionResult;
    try {
      // docs/testing.md: the order's test_scenario decides how the event goes out.
      result = await faultsFor(gw).deliver(scenarioOfOrder(order), send, intermediate);
    } catch (err) {
      gw.log.warn({ err, order_id: order.id }, 'wallet_psp simulator: gateway unreachable');
      return sendText(reply, 502, 'simulator could not reach the gateway');
    }
    return replyToAction(req.headers.accept, reply, result, back(order));
  }

  /** The capture with its link to the order, as capture webhooks carry it. */
  const captureResource = (order: WpOrder, capture: WpCapture): WpCapture => ({
    ...capture,
    links: [{ href: `${sim.apiBase()}/v2/checkout/orders/${order.id}`, rel: 'up', method: 'GET' }],
  });

  // The capture taken back: a bank reversal with no case (the money is gone at once), or,
  // on an order with a case, the chargeback of that case (PayPal reverses the capture of a
  // case it decided for the buyer's bank: the case's money, not more).
  app.post<{ Params: { ref: string } }>('/payments/:ref/reverse', async (req, reply) => {
    const ref = req.params.ref;
    const now = clock.now();
    let refusal = '';
    const updated = await orders.update(ref, (o) => {
      const [unit, ...rest] = o.order.purchase_units;
      const capture = orderCapture(o.order);
      if (!unit || !capture || capture.status !== 'COMPLETED') {
        refusal = `cannot reverse: order ${ref} has no completed capture`;
        return null;
      }
      const reversed: WpCapture = {
        ...capture,
        status: 'REVERSED',
        status_details: { reason: 'CHARGEBACK' },
        update_time: providerTime(now),
      };
      return {
        ...o,
        order: {
          ...o.order,
          update_time: providerTime(now),
          purchase_units: [{ ...unit, payments: { captures: [reversed] } }, ...rest],
        },
      };
    });
    if (!updated) return sendText(reply, 404, 'unknown reference');
    if (refusal) return sendText(reply, 409, refusal);
    const capture = orderCapture(updated.order) as WpCapture;
    const amount = `${capture.amount.value} ${capture.amount.currency_code}`;
    return answer(req, reply, updated.order, () =>
      deliver(
        'PAYMENT.CAPTURE.REVERSED',
        'capture',
        captureResource(updated.order, capture),
        `Payment reversed for ${amount}`,
      ),
    );
  });

  for (const action of DISPUTE_ACTIONS) {
    app.post<{ Params: { ref: string } }>(`/payments/:ref/${action}`, async (req, reply) => {
      const ref = req.params.ref;
      const found = await orders.get(ref);
      if (!found) return sendText(reply, 404, 'unknown reference');
      const capture = orderCapture(found.order);
      const completed =
        capture && (capture.status === 'COMPLETED' || capture.status === 'PARTIALLY_REFUNDED');
      // A case opens on a completed capture; it is resolved whatever happened to the capture
      // since (a chargeback case reverses it first).
      if (!capture || (action === 'dispute' && !completed)) {
        return sendText(reply, 409, `cannot ${action}: order ${ref} has no completed capture`);
      }
      const now = clock.now();
      if (action === 'dispute') {
        const amount = requestedAmount(req, capture);
        if (typeof amount === 'string') return sendText(reply, 400, amount);
        const dispute = newDispute(capture, amount, now);
        // One case per order: the insert of its pointer decides a race between two actions.
        const claimed = await byOrder.create(ref, { disputeId: dispute.dispute_id });
        if (!claimed.created) return sendText(reply, 409, `order ${ref} already has a dispute`);
        await byCapture.create(capture.id, { disputeId: dispute.dispute_id });
        await disputes.create(dispute.dispute_id, {
          dispute,
          clientId: found.clientId,
          orderId: ref,
        });
        return answer(req, reply, found.order, () =>
          deliver(
            'CUSTOMER.DISPUTE.CREATED',
            'dispute',
            dispute,
            `A new dispute opened with Case # ${dispute.dispute_id}`,
          ),
        );
      }
      const pointer = await byOrder.get(ref);
      if (!pointer) return sendText(reply, 409, `order ${ref} has no dispute`);
      const opened = await disputes.get(pointer.disputeId);
      let refusal = '';
      const resolved = await disputes.update(pointer.disputeId, (d) => {
        if (d.dispute.status === 'RESOLVED') {
          refusal = `dispute ${pointer.disputeId} is already resolved`;
          return null;
        }
        const won = action === 'dispute_won';
        return {
          ...d,
          dispute: {
            ...d.dispute,
            status: 'RESOLVED',
            update_time: providerTime(now),
            dispute_outcome: won
              ? { outcome_code: 'RESOLVED_SELLER_FAVOUR' }
              : {
                  outcome_code: 'RESOLVED_BUYER_FAVOUR',
                  amount_refunded: d.dispute.dispute_amount,
                },
          },
        };
      });
      if (!resolved || !opened) return sendText(reply, 404, 'unknown dispute');
      if (refusal) return sendText(reply, 409, refusal);
      const d = resolved.dispute;
      return answer(
        req,
        reply,
        found.order,
        () =>
          deliver(
            'CUSTOMER.DISPUTE.RESOLVED',
            'dispute',
            d,
            `A dispute was resolved with case # ${d.dispute_id}`,
          ),
        // out_of_order: the case's creation arrives after its resolution.
        () =>
          deliver(
            'CUSTOMER.DISPUTE.CREATED',
            'dispute',
            opened.dispute,
            `A new dispute opened with Case # ${d.dispute_id}`,
          ),
      );
    });
  }
}

/** `{ "amount_minor": n }` (optional): part of the capture; the whole capture without it. */
function requestedAmount(req: FastifyRequest, capture: WpCapture): number | string {
  const currency = capture.amount.currency_code;
  const full = decimalToMinor(capture.amount.value, currency) ?? 0;
  const raw = rawBody(req);
  if (raw.length === 0) return full;
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'body must be JSON';
  }
  const amount = (body as { amount_minor?: unknown } | null)?.amount_minor;
  if (amount === undefined) return full;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1 || amount > full) {
    return `amount_minor must be an integer from 1 to ${full}`;
  }
  return amount;
}

function caseId(): string {
  let digits = '';
  for (let i = 0; i < 8; i++) digits += String(randomInt(10));
  return `PP-D-${digits}`;
}

/** A new case as PayPal's dispute API shows it (fields of GET /v1/customer/disputes/{id}). */
function newDispute(capture: WpCapture, amountMinor: number, now: number): WpDispute {
  const currency = capture.amount.currency_code;
  return {
    dispute_id: caseId(),
    create_time: providerTime(now),
    update_time: providerTime(now),
    disputed_transactions: [
      {
        seller_transaction_id: capture.id,
        create_time: capture.create_time,
        transaction_status: 'COMPLETED',
        gross_amount: capture.amount,
        ...(capture.invoice_id ? { invoice_number: capture.invoice_id } : {}),
        ...(capture.custom_id ? { custom: capture.custom_id } : {}),
        seller_protection_eligible: true,
      },
    ],
    reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
    status: 'WAITING_FOR_SELLER_RESPONSE',
    dispute_amount: { currency_code: currency, value: minorToDecimal(amountMinor, currency) },
    seller_response_due_date: providerTime(now + RESPONSE_DAYS * 86_400_000),
    dispute_life_cycle_stage: 'INQUIRY',
    dispute_channel: 'INTERNAL',
    links: [],
  };
}
