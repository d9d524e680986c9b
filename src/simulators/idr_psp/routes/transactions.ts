import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rawBody, sendJson } from '../../reply.js';
import { faultsFor } from '../../faults.js';
import { coreTransaction, current, publicBase, type Sim } from '../context.js';
import { scenarioOfTransaction, settleRefundLater } from '../faults.js';
import { notify } from '../notify.js';
import { authorized, coreError, UNAUTHORIZED } from '../protocol.js';
import { decideCancel, decideRefund, parseCancelBody, type CancelOutcome } from '../refunds.js';
import { expired, SIM_CHANNELS } from '../transactions.js';
import { providerTime, signatureKey, transactionWire } from '../wire.js';

/** Core API on one transaction: status, expire, cancel and refund. */
export function registerTransactionRoutes(app: FastifyInstance, sim: Sim): void {
  const { gw, clock } = sim;
  // The Core API names a transaction by order_id or by transaction_id, everywhere.
  app.get<{ Params: { order_id: string } }>('/v2/:order_id/status', async (req, reply) => {
    if (!authorized(sim, req)) return coreError(reply, 401, UNAUTHORIZED);
    const tx = await coreTransaction(sim, req.params.order_id);
    if (!tx) return coreError(reply, 404, "Transaction doesn't exist.");
    const w = transactionWire(current(tx, clock.now()), {
      simBase: publicBase(gw),
      forStatusApi: true,
    });
    return sendJson(reply, 200, { ...w, signature_key: signatureKey(w, sim.serverKey) });
  });

  // Expire: a pending transaction is made unpayable at once (answered 407, then notified).
  app.post<{ Params: { order_id: string } }>('/v2/:order_id/expire', async (req, reply) => {
    if (!authorized(sim, req)) return coreError(reply, 401, UNAUTHORIZED);
    const found = await coreTransaction(sim, req.params.order_id);
    if (!found) return coreError(reply, 404, "Transaction doesn't exist.");
    let moved = false;
    const tx = await sim.transactions.update(found.order_id, (cur) => {
      if (cur.transaction_status !== 'pending') return null;
      moved = true;
      return { ...expired(cur), status_message: 'Transaction expired by the merchant' };
    });
    if (!tx || !moved) {
      return coreError(reply, 412, 'Merchant cannot modify the status of the transaction');
    }
    sendJson(reply, 200, {
      status_code: '407',
      status_message: 'Success, transaction has expired',
      transaction_id: tx.transaction_id,
      order_id: tx.order_id,
      gross_amount: `${tx.gross_amount}.00`,
      currency: tx.currency,
      payment_type: SIM_CHANNELS[tx.channel].paymentType,
      transaction_time: providerTime(tx.transaction_time_ms),
      transaction_status: 'expire',
      fraud_status: 'accept',
    });
    setImmediate(() => {
      notify(sim, tx).catch((err: unknown) =>
        gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
      );
    });
    return reply;
  });

  // Core API cancel (pending transactions only) and refund (paid ones; the online direct
  // path is the same operation here).
  const coreAction =
    (op: 'cancel' | 'refund') =>
    async (req: FastifyRequest<{ Params: { order_id: string } }>, reply: FastifyReply) => {
      if (!authorized(sim, req)) return coreError(reply, 401, UNAUTHORIZED);
      // A cancel takes no body (midtrans-client sends `null`); a refund's body is checked.
      const parsed = op === 'cancel' ? { request: null } : parseCancelBody(rawBody(req));
      if (!('request' in parsed)) return sendJson(reply, parsed.http, parsed.body);
      const request = parsed.request;
      const now = clock.now();
      const held: { out?: CancelOutcome } = {};
      const found = await coreTransaction(sim, req.params.order_id);
      if (!found) return coreError(reply, 404, "Transaction doesn't exist.");
      const tx = await sim.transactions.update(found.order_id, (cur) => {
        const out = op === 'cancel' ? decideCancel(cur, now) : decideRefund(cur, request, now);
        held.out = out;
        return out.kind === 'answered' ? null : out.next;
      });
      const out = held.out;
      if (!tx || !out) return coreError(reply, 404, "Transaction doesn't exist.");
      if (out.kind === 'lapsed') {
        await notify(sim, tx).catch((err: unknown) =>
          gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
        );
      }
      // docs/testing.md: refund_timeout loses the answer; refund_pending settles it later.
      const scenario = out.kind === 'refunded' ? scenarioOfTransaction(tx) : null;
      if (scenario === 'refund_timeout') return faultsFor(gw).loseAnswer(reply);
      if (scenario === 'refund_pending' && typeof out.answer.body.refund_key === 'string') {
        const key = out.answer.body.refund_key;
        settleRefundLater(
          faultsFor(gw),
          sim.transactions,
          () => clock.now(),
          tx.order_id,
          key,
          (t) => notify(sim, t),
        );
      }
      sendJson(reply, out.answer.http, out.answer.body);
      // A completed refund is notified too (transaction_status refund or partial_refund), as
      // the provider does, so a refund made outside the gateway (its dashboard) reaches it.
      const refundDone = out.kind === 'refunded' && out.answer.body.status_code === '200';
      if (out.kind === 'canceled' || refundDone) {
        // Like the provider, the notification follows the answer rather than preceding it.
        setImmediate(() => {
          notify(sim, tx).then(
            (res) =>
              gw.log.info(
                { order_id: tx.order_id, gateway_status: res.gateway_status },
                `idr_psp simulator sent ${out.kind === 'canceled' ? 'cancel' : 'refund'} notification`,
              ),
            (err: unknown) =>
              gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
          );
        });
      }
      return reply;
    };
  app.post('/v2/:order_id/cancel', coreAction('cancel'));
  app.post('/v2/:order_id/refund', coreAction('refund'));
  app.post('/v2/:order_id/refund/online/direct', coreAction('refund'));
}
