import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendText } from '../reply.js';
import { replyToAction, type ActionResult } from '../common.js';
import { publicBase, type Sim } from './context.js';
import { notify } from './notify.js';
import type { RefundAction } from './page.js';
import { actionParam } from './protocol.js';
import { settlePendingRefund } from './refunds.js';
import {
  choose,
  isChosen,
  isSimChannel,
  type SimRefund,
  type SimTransaction,
} from './transactions.js';

/**
 * refund_succeed / refund_fail: the paying wallet settles a pending cross-wallet refund, and
 * the provider notifies (refund or partial_refund; a declined one as a failed refunds[] entry).
 * Optional parameters: refund_key (which pending refund), reason (refund_fail's text).
 */
export async function refundAction(
  sim: Sim,
  req: FastifyRequest,
  reply: FastifyReply,
  found: SimTransaction,
  action: RefundAction,
  ref: string,
): Promise<FastifyReply> {
  const refundKey = actionParam(req, 'refund_key');
  const failureMessage = actionParam(req, 'reason');
  const now = sim.clock.now();
  const held: { problem?: string; refund?: SimRefund } = {};
  const tx = await sim.transactions.update(found.order_id, (cur) => {
    const r = settlePendingRefund(cur, action === 'refund_succeed' ? 'succeeded' : 'failed', now, {
      ...(refundKey !== undefined ? { refundKey } : {}),
      ...(failureMessage ? { failureMessage } : {}),
    });
    if ('problem' in r) {
      held.problem = r.problem;
      return null;
    }
    held.refund = r.refund;
    return r.next;
  });
  if (!tx) return sendText(reply, 404, 'unknown reference');
  if (held.problem || !held.refund)
    return sendText(reply, 409, held.problem ?? 'no pending refund');
  let result: ActionResult;
  try {
    result = await notify(sim, tx, held.refund.status === 'failed' ? held.refund : undefined);
  } catch (err) {
    sim.gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed');
    return sendText(reply, 502, 'notification delivery to the gateway failed');
  }
  return replyToAction(req.headers.accept, reply, result, {
    pageUrl: `${publicBase(sim.gw)}/payments/${ref}`,
    ...(tx.finish_url ? { returnUrl: tx.finish_url } : {}),
  });
}

/**
 * The buyer chooses a channel on a Snap page (parameter `method`, one of the page's channels;
 * by default the first): the provider's transaction comes into being, pending, and the
 * provider notifies it. Answers the chosen transaction, or null after replying with the
 * refusal (409 for an expired page or a channel already chosen, 400 for a channel not offered).
 */
export async function chooseChannel(
  sim: Sim,
  req: FastifyRequest,
  reply: FastifyReply,
  found: SimTransaction,
): Promise<SimTransaction | null> {
  const offered = found.enabled ?? [found.channel];
  const method = actionParam(req, 'method') ?? offered[0];
  if (!isSimChannel(method) || !offered.includes(method)) {
    sendText(reply, 400, `method must be one of ${offered.join(', ')}`);
    return null;
  }
  const now = sim.clock.now();
  let problem = '';
  let changed = false;
  const tx = await sim.transactions.update(found.order_id, (cur) => {
    if (isChosen(cur)) {
      problem = cur.channel === method ? '' : `channel already chosen: ${cur.channel}`;
      return null;
    }
    // The page lapses with the order's expiry; no transaction is ever made (and no notice).
    if (now >= cur.expiry_ms) {
      problem = 'the payment page has expired';
      return null;
    }
    changed = true;
    return choose(cur, method, now);
  });
  if (!tx) {
    sendText(reply, 404, 'unknown reference');
    return null;
  }
  if (problem) {
    sendText(reply, 409, problem);
    return null;
  }
  if (changed) {
    await notify(sim, tx).catch((err: unknown) =>
      sim.gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
    );
  }
  return tx;
}
