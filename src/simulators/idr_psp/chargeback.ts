import { randomInt } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawBody, sendText } from '../reply.js';
import { replyToAction, type ActionResult } from '../common.js';
import { publicBase, type Sim } from './context.js';
import { notify } from './notify.js';
import { parseBody } from './protocol.js';
import { isPaid, refundedAmount, type SimRefund, type SimTransaction } from './transactions.js';

/**
 * POST /payments/<ref>/chargeback (docs/api.md#test-mode, D16): the buyer's bank takes back
 * the money left on a paid transaction, or `{ "amount_minor": n }` of it. The transaction
 * moves to chargeback (everything left) or partial_chargeback (a partly charged-back one can
 * be charged back again), the chargeback is listed in refunds[] without a refund_key, and the
 * provider notifies (docs/providers/idr_psp.md, "Chargebacks").
 */
export async function chargebackAction(
  sim: Sim,
  req: FastifyRequest,
  reply: FastifyReply,
  found: SimTransaction,
  ref: string,
): Promise<FastifyReply> {
  let requested: number | null = null;
  if (rawBody(req).length > 0) {
    const body = parseBody(req);
    const amount = body?.amount_minor;
    if (!body || (amount !== undefined && (!Number.isSafeInteger(amount) || Number(amount) < 1))) {
      return sendText(reply, 400, 'amount_minor must be a positive integer');
    }
    requested = amount === undefined ? null : Number(amount);
  }
  const now = sim.clock.now();
  let problem = '';
  const tx = await sim.transactions.update(found.order_id, (cur) => {
    if (!isPaid(cur) && cur.transaction_status !== 'partial_chargeback') {
      problem = `cannot charge back: transaction is ${cur.transaction_status}`;
      return null;
    }
    if ((cur.refunds ?? []).some((r) => r.status === 'pending')) {
      problem = 'cannot charge back: a refund is pending at the paying wallet';
      return null;
    }
    const left = cur.gross_amount - refundedAmount(cur);
    if (left <= 0) {
      problem = 'cannot charge back: nothing left to take back';
      return null;
    }
    if (requested !== null && requested > left) {
      problem = `amount_minor must be at most ${left}`;
      return null;
    }
    const amount = requested ?? left;
    const chargeback: SimRefund = {
      refund_key: '',
      refund_chargeback_id: randomInt(1, 2 ** 31 - 1),
      amount,
      reason: "chargeback by the buyer's bank",
      status: 'succeeded',
      created_ms: now,
      settled_ms: now,
      failure_message: null,
      answer: { http: 200, body: {} },
      chargeback: true,
    };
    return {
      ...cur,
      transaction_status: amount === left ? 'chargeback' : 'partial_chargeback',
      status_message: 'midtrans chargeback notification',
      refunds: [...(cur.refunds ?? []), chargeback],
    };
  });
  if (!tx) return sendText(reply, 404, 'unknown reference');
  if (problem) return sendText(reply, 409, problem);
  let result: ActionResult;
  try {
    result = await notify(sim, tx);
  } catch (err) {
    sim.gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed');
    return sendText(reply, 502, 'notification delivery to the gateway failed');
  }
  return replyToAction(req.headers.accept, reply, result, {
    pageUrl: `${publicBase(sim.gw)}/payments/${ref}`,
    ...(tx.finish_url ? { returnUrl: tx.finish_url } : {}),
  });
}
