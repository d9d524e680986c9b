import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findWalletCaptureIdByRefund, findWalletOrderIdByCapture } from '../../db/reads.js';
import { minorToDecimal } from '../../money.js';
import type { SimulatorHost } from '../../host.js';
import { header, rawBody, sendJson, sendText } from '../../reply.js';
import { type WpRefundResource, WP_HEADER, type WpCapture, type WpResourceType } from '../wire.js';
import { SimStore, replyToAction, type ActionResult, type SimClock } from '../../common.js';
import { FAULT_DELAY_MS, faultsFor } from '../../faults.js';
import { scenarioOfOrder } from '../faults.js';
import {
  WpApiError,
  apiError,
  orderCapture,
  providerId,
  providerTime,
  type SimOrder,
  type SimToken,
} from '../orders.js';
import {
  captureStatusAfter,
  decideRefund,
  REFUND_FAILED_REASON,
  validateRefund,
  type RefundDecision,
  type SimCaptureRefunds,
  type SimRefundEntry,
} from '../refunds.js';

export interface RefundRouteDeps {
  gw: SimulatorHost;
  clock: SimClock;
  apiBase: () => string;
  orders: SimStore<SimOrder>;
  authorize: (req: FastifyRequest, reply: FastifyReply) => Promise<SimToken | null>;
  deliver: (
    eventType: string,
    resourceType: WpResourceType,
    resource: unknown,
    summary: string,
  ) => Promise<ActionResult>;
}

const REFUND_ACTIONS = {
  refund_succeed: 'COMPLETED',
  refund_fail: 'FAILED',
} as const;

/**
 * Capture refunds (POST /v2/payments/captures/{id}/refund) and the scripted settlement of a
 * PENDING refund (POST /payments/<order id>/refund_succeed | refund_fail).
 */
export function registerRefundRoutes(app: FastifyInstance, deps: RefundRouteDeps): void {
  const { gw, clock, orders } = deps;
  const store = new SimStore<SimCaptureRefunds>(gw.pool, 'wallet_psp', 'capture_refunds');

  async function orderIdOfCapture(captureId: string): Promise<string | null> {
    const known = await store.get(captureId);
    if (known) return known.orderId;
    // Captures live inside their order; the refund route is addressed by capture id.
    return findWalletOrderIdByCapture(gw.pool, captureId);
  }

  /** Mirrors the completed refunds in the order's capture status, as GET order shows it. */
  async function syncCaptureStatus(orderId: string, refunds: readonly SimRefundEntry[]) {
    await orders.update(orderId, (o) => {
      const [unit, ...rest] = o.order.purchase_units;
      const capture = orderCapture(o.order);
      if (!unit || !capture) return null;
      const status = captureStatusAfter(capture, refunds);
      if (status === capture.status) return null;
      const updated: WpCapture = { ...capture, status, update_time: providerTime(clock.now()) };
      return {
        ...o,
        order: {
          ...o.order,
          purchase_units: [{ ...unit, payments: { captures: [updated] } }, ...rest],
        },
      };
    });
  }

  function refundedEvent(refund: WpRefundResource): Promise<ActionResult> {
    const amount = `${refund.amount.value} ${refund.amount.currency_code}`;
    return deps.deliver(
      'PAYMENT.CAPTURE.REFUNDED',
      'refund',
      refund,
      `A ${amount} capture payment was refunded`,
    );
  }

  function failedEvent(refund: WpRefundResource): Promise<ActionResult> {
    const amount = `${refund.amount.value} ${refund.amount.currency_code}`;
    return deps.deliver('PAYMENT.REFUND.FAILED', 'refund', refund, `A ${amount} refund failed`);
  }

  function notFound(id: string): WpApiError {
    return apiError(404, {
      field: 'capture_id',
      value: id,
      location: 'path',
      issue: 'INVALID_RESOURCE_ID',
      description:
        'Specified resource ID does not exist. Please check the resource ID and try again.',
    });
  }

  // The capture as it stands (its status follows completed refunds), with PayPal's links.
  app.get<{ Params: { id: string } }>('/v2/payments/captures/:id', async (req, reply) => {
    const token = await deps.authorize(req, reply);
    if (!token) return reply;
    const captureId = req.params.id;
    const orderId = await orderIdOfCapture(captureId);
    const found = orderId ? await orders.get(orderId) : null;
    const capture = found ? orderCapture(found.order) : undefined;
    if (!found || found.clientId !== token.clientId || !capture || capture.id !== captureId) {
      const err = notFound(captureId);
      return sendJson(reply, err.status, err.body);
    }
    const base = `${deps.apiBase()}/v2/payments/captures/${captureId}`;
    return sendJson(reply, 200, {
      ...capture,
      links: [
        { href: base, rel: 'self', method: 'GET' },
        { href: `${base}/refund`, rel: 'refund', method: 'POST' },
        {
          href: `${deps.apiBase()}/v2/checkout/orders/${found.order.id}`,
          rel: 'up',
          method: 'GET',
        },
      ],
    });
  });

  // A refund as it stands (GET /v2/payments/refunds/{id}, the SDK's getRefund).
  app.get<{ Params: { id: string } }>('/v2/payments/refunds/:id', async (req, reply) => {
    const token = await deps.authorize(req, reply);
    if (!token) return reply;
    const refundId = req.params.id;
    const captureId = await findWalletCaptureIdByRefund(gw.pool, refundId);
    const kept = captureId ? await store.get(captureId) : null;
    const entry = kept?.refunds.find((r) => r.refund.id === refundId);
    if (!kept || !entry || kept.clientId !== token.clientId) {
      const err = apiError(404, {
        field: 'refund_id',
        value: refundId,
        location: 'path',
        issue: 'INVALID_RESOURCE_ID',
        description:
          'Specified resource ID does not exist. Please check the resource ID and try again.',
      });
      return sendJson(reply, err.status, err.body);
    }
    return sendJson(reply, 200, entry.refund);
  });

  app.post<{ Params: { id: string } }>('/v2/payments/captures/:id/refund', async (req, reply) => {
    const token = await deps.authorize(req, reply);
    if (!token) return reply;
    const captureId = req.params.id;
    const request = validateRefund(rawBody(req));
    if (request instanceof WpApiError) return sendJson(reply, request.status, request.body);
    const orderId = await orderIdOfCapture(captureId);
    const found = orderId ? await orders.get(orderId) : null;
    const capture = found ? orderCapture(found.order) : undefined;
    if (!orderId || !found || found.clientId !== token.clientId || capture?.id !== captureId) {
      const err = notFound(captureId);
      return sendJson(reply, err.status, err.body);
    }
    const requestId = header(req, WP_HEADER.requestId) ?? null;
    await store.create(captureId, { orderId, clientId: token.clientId, refunds: [] });
    const now = clock.now();
    let decision: RefundDecision | null = null;
    const scenario = scenarioOfOrder(found.order);
    const updated = await store.update(captureId, (s) => {
      decision = decideRefund({
        capture,
        refunds: s.refunds,
        request,
        requestId,
        now,
        alwaysPending: scenario === 'refund_pending',
      });
      if (decision.kind !== 'refund') return null;
      const t = providerTime(now);
      const id = providerId();
      const currency = capture.amount.currency_code;
      const refund: WpRefundResource = {
        id,
        status: decision.status,
        amount: { currency_code: currency, value: minorToDecimal(decision.amountMinor, currency) },
        create_time: t,
        update_time: t,
        links: [
          { href: `${deps.apiBase()}/v2/payments/refunds/${id}`, rel: 'self', method: 'GET' },
          { href: `${deps.apiBase()}/v2/payments/captures/${captureId}`, rel: 'up', method: 'GET' },
        ],
      };
      const customId = request.customId ?? capture.custom_id;
      const invoiceId = request.invoiceId ?? capture.invoice_id;
      if (customId) refund.custom_id = customId;
      if (invoiceId) refund.invoice_id = invoiceId;
      if (request.note) refund.note_to_payer = request.note;
      return {
        ...s,
        refunds: [...s.refunds, { refund, amountMinor: decision.amountMinor, requestId }],
      };
    });
    const d = decision as RefundDecision | null;
    if (!updated || !d) {
      const err = notFound(captureId);
      return sendJson(reply, err.status, err.body);
    }
    if (d.kind === 'refused') return sendJson(reply, d.error.status, d.error.body);
    if (d.kind === 'replay') return sendJson(reply, 200, d.entry.refund);
    const entry = updated.refunds[updated.refunds.length - 1] as SimRefundEntry;
    await syncCaptureStatus(orderId, updated.refunds);
    if (scenario === 'refund_pending') {
      // docs/testing.md: the paying side settles it later, exactly as its refund_succeed action.
      faultsFor(gw).later(FAULT_DELAY_MS, 'pending refund settlement', () =>
        fetch(
          `${gw.urls.internal}/sim/wallet_psp/payments/${encodeURIComponent(orderId)}/refund_succeed`,
          {
            method: 'POST',
          },
        ),
      );
    }
    if (entry.refund.status === 'COMPLETED') {
      // As PayPal does, a completed refund is also announced by webhook (after the answer).
      const refund = entry.refund;
      setTimeout(() => {
        refundedEvent(refund).catch((err: unknown) =>
          gw.log.warn({ err, refund_id: refund.id }, 'wallet_psp simulator: refund event failed'),
        );
      }, 10);
    }
    // docs/testing.md: refund_timeout loses the answer (the refund and its event stand).
    if (scenario === 'refund_timeout') return faultsFor(gw).loseAnswer(reply);
    return sendJson(reply, 201, entry.refund);
  });

  for (const [action, status] of Object.entries(REFUND_ACTIONS)) {
    app.post<{ Params: { ref: string } }>(`/payments/:ref/${action}`, async (req, reply) => {
      const ref = req.params.ref;
      const found = await orders.get(ref);
      if (!found) return sendText(reply, 404, 'unknown reference');
      const capture = orderCapture(found.order);
      let settled: SimRefundEntry | null = null;
      const updated = capture
        ? await store.update(capture.id, (s) => {
            // The newest pending refund (the gateway allows one at a time per payment).
            let i = s.refunds.length - 1;
            while (i >= 0 && s.refunds[i]?.refund.status !== 'PENDING') i--;
            const pending = s.refunds[i];
            if (!pending) return null;
            const refund: WpRefundResource = {
              ...pending.refund,
              status,
              update_time: providerTime(clock.now()),
            };
            delete refund.status_details;
            if (status === 'FAILED') refund.status_details = { reason: REFUND_FAILED_REASON };
            settled = { ...pending, refund };
            const refunds = [...s.refunds];
            refunds[i] = settled;
            return { ...s, refunds };
          })
        : null;
      const done = settled as SimRefundEntry | null;
      if (!updated || !done) {
        return sendText(reply, 409, `cannot ${action}: order ${ref} has no pending refund`);
      }
      await syncCaptureStatus(ref, updated.refunds);
      let result: ActionResult;
      try {
        result =
          status === 'COMPLETED'
            ? await refundedEvent(done.refund)
            : await failedEvent(done.refund);
      } catch (err) {
        gw.log.warn({ err, order_id: ref }, 'wallet_psp simulator: gateway unreachable');
        return sendText(reply, 502, 'simulator could not reach the gateway');
      }
      const pageUrl = `${gw.urls.public}/sim/wallet_psp/checkoutnow?token=${encodeURIComponent(ref)}`;
      return replyToAction(req.headers.accept, reply, result, { pageUrl });
    });
  }
}
