import type { FastifyInstance } from 'fastify';
import { sendJson, sendText } from '../../reply.js';
import { replyToAction, SIM_ACTIONS, type ActionResult } from '../../common.js';
import { chooseChannel, refundAction } from '../buyerActions.js';
import { chargebackAction } from '../chargeback.js';
import { byRef, publicBase, type Sim } from '../context.js';
import { notify } from '../notify.js';
import { isRefundAction } from '../page.js';
import { actionParam } from '../protocol.js';
import { applyAction, expired, FINISHED_WORD, isChosen, isDue } from '../transactions.js';
import { transactionWire } from '../wire.js';

/** A wallet app name as QRIS issuers are named (gopay, ovo, dana, shopeepay...). */
const WALLET = /^[a-z][a-z0-9_]{0,31}$/;
/** The buyer's scripted actions: POST /payments/<ref>/<action> (docs/api.md#test-mode). */
export function registerActionRoutes(app: FastifyInstance, sim: Sim): void {
  const { gw, clock } = sim;
  app.post<{ Params: { ref: string; action: string } }>(
    '/payments/:ref/:action',
    async (req, reply) => {
      const { ref, action } = req.params;
      let found = await byRef(sim, ref);
      if (!found) return sendText(reply, 404, 'unknown reference');
      if (isRefundAction(action)) return refundAction(sim, req, reply, found, action, ref);
      if (action === 'chargeback') return chargebackAction(sim, req, reply, found, ref);
      if (action !== 'choose' && !(SIM_ACTIONS as readonly string[]).includes(action)) {
        return sendText(reply, 404, 'unknown action');
      }
      if (!isChosen(found) || action === 'choose') {
        const picked = await chooseChannel(sim, req, reply, found);
        if (!picked) return reply;
        found = picked;
        if (action === 'choose') {
          return sendJson(reply, 200, {
            ...transactionWire(found, { simBase: publicBase(gw), forStatusApi: true }),
          });
        }
      }
      const act = action as (typeof SIM_ACTIONS)[number];
      const wallet = act === 'pay' ? actionParam(req, 'wallet') : undefined;
      if (wallet !== undefined) {
        if (found.qr_string === null) {
          return sendText(reply, 400, 'wallet applies to QRIS payments only');
        }
        if (!WALLET.test(wallet)) {
          return sendText(reply, 400, 'wallet must be a wallet name such as gopay or ovo');
        }
      }
      const now = clock.now();
      let outcome = 'finished' as 'applied' | 'lapsed' | 'finished';
      const tx = await sim.transactions.update(found.order_id, (cur) => {
        if (cur.transaction_status !== 'pending') {
          outcome = 'finished';
          return null;
        }
        // Past its expiry the provider has already expired it; only that can be reported.
        if (isDue(cur, now) && act !== 'expire') {
          outcome = 'lapsed';
          return expired(cur);
        }
        outcome = 'applied';
        return applyAction(cur, act, now, wallet ?? null);
      });
      if (!tx) return sendText(reply, 404, 'unknown reference');
      if (outcome === 'finished' || outcome === 'lapsed') {
        if (outcome === 'lapsed') {
          await notify(sim, tx).catch((err: unknown) =>
            gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
          );
        }
        const status = tx.transaction_status;
        const word = status === 'pending' ? 'pending' : FINISHED_WORD[status];
        return sendText(reply, 409, `transaction already ${word}`);
      }
      let result: ActionResult;
      try {
        result = await notify(sim, tx);
      } catch (err) {
        gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed');
        return sendText(reply, 502, 'notification delivery to the gateway failed');
      }
      return replyToAction(req.headers.accept, reply, result, {
        pageUrl: `${publicBase(gw)}/payments/${ref}`,
        ...(tx.finish_url ? { returnUrl: tx.finish_url } : {}),
      });
    },
  );
}
