import type { FastifyInstance } from 'fastify';
import { sendJson } from '../../reply.js';
import { faultsFor, REGISTRATION_5XX_TEXT } from '../../faults.js';
import { publicBase, type Sim } from '../context.js';
import { registrationFaultOf } from '../faults.js';
import { obj, parseBody, snapError, authorized, UNAUTHORIZED } from '../protocol.js';
import { registrationProblem, store } from '../registration.js';
import {
  isSimChannel,
  merchantIdFor,
  newTransaction,
  QR_EXPIRY_MINUTES,
  SIM_CHANNELS,
  type SimChannel,
} from '../transactions.js';

/** Snap: POST /snap/v1/transactions registers an order and answers its payment page. */
export function registerSnapRoutes(app: FastifyInstance, sim: Sim): void {
  const { gw, clock } = sim;
  app.post('/snap/v1/transactions', async (req, reply) => {
    if (!authorized(sim, req)) return snapError(reply, 401, UNAUTHORIZED);
    const body = parseBody(req);
    if (!body) return snapError(reply, 400, 'request body must be a JSON object');
    // No enabled_payments (or an empty list): the page offers every channel.
    const payments = body.enabled_payments ?? [];
    if (!Array.isArray(payments) || !payments.every(isSimChannel)) {
      return snapError(
        reply,
        400,
        `enabled_payments must name channels among ${Object.keys(SIM_CHANNELS).join(', ')}`,
      );
    }
    const enabled: SimChannel[] =
      payments.length > 0 ? [...new Set(payments)] : (Object.keys(SIM_CHANNELS) as SimChannel[]);
    const channel = enabled[0] as SimChannel;
    const details = obj(body.transaction_details);
    const customer = obj(body.customer_details);
    const problem = registrationProblem(details, customer, channel);
    if (problem) return snapError(reply, 400, problem);
    let qrExpiryMinutes: number | undefined;
    if (enabled.length === 1 && channel === 'other_qris' && body.expiry !== undefined) {
      const e = obj(body.expiry);
      const perUnit: Record<string, number> = {
        minute: 1,
        minutes: 1,
        hour: 60,
        hours: 60,
        day: 1440,
        days: 1440,
      };
      const factor = typeof e.unit === 'string' ? perUnit[e.unit] : undefined;
      const minutes =
        factor !== undefined && Number.isSafeInteger(e.duration) && (e.duration as number) > 0
          ? (e.duration as number) * factor
          : null;
      if (minutes === null)
        return snapError(reply, 400, 'expiry.unit or expiry.duration is invalid');
      if (minutes > QR_EXPIRY_MINUTES) {
        return snapError(reply, 400, `expiry for qris cannot exceed ${QR_EXPIRY_MINUTES} minutes`);
      }
      qrExpiryMinutes = minutes;
    }
    const finish = obj(body.callbacks).finish;
    const tx = await store(
      sim,
      newTransaction({
        orderId: details.order_id as string,
        flow: 'snap',
        channel,
        enabled,
        grossAmount: details.gross_amount as number,
        email: customer.email as string,
        finishUrl: typeof finish === 'string' ? finish : null,
        merchantId: merchantIdFor(sim.serverKey),
        now: clock.now(),
        ...(qrExpiryMinutes !== undefined ? { qrExpiryMinutes } : {}),
        customField1: typeof body.custom_field1 === 'string' ? body.custom_field1 : null,
      }),
    );
    if (!tx || !tx.token) {
      return snapError(reply, 400, 'transaction_details.order_id has already been taken');
    }
    const fault = await registrationFaultOf(sim.transactions, tx);
    if (fault === 'registration_5xx') return snapError(reply, 500, REGISTRATION_5XX_TEXT);
    if (fault === 'registration_timeout') return faultsFor(gw).loseAnswer(reply);
    return sendJson(reply, 201, {
      token: tx.token,
      redirect_url: `${publicBase(gw)}/snap/v2/vtweb/${tx.token}`,
    });
  });
}
