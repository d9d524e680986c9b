import type { FastifyInstance } from 'fastify';
import { sendJson } from '../../reply.js';
import { faultsFor, REGISTRATION_5XX_TEXT } from '../../faults.js';
import { current, publicBase, type Sim } from '../context.js';
import { registrationFaultOf } from '../faults.js';
import { authorized, coreError, obj, parseBody, UNAUTHORIZED } from '../protocol.js';
import { CHARGE_CREATED, chargeChannel, registrationProblem, store } from '../registration.js';
import { merchantIdFor, newTransaction, QR_EXPIRY_MINUTES } from '../transactions.js';
import { transactionWire } from '../wire.js';

/** Core API: POST /v2/charge registers a transaction on the channel it names. */
export function registerChargeRoutes(app: FastifyInstance, sim: Sim): void {
  const { gw, clock } = sim;
  app.post('/v2/charge', async (req, reply) => {
    if (!authorized(sim, req)) return coreError(reply, 401, UNAUTHORIZED);
    const body = parseBody(req);
    if (!body) return coreError(reply, 400, 'Request body is not valid JSON');
    const channel = chargeChannel(body);
    if (typeof channel !== 'string') {
      return coreError(reply, 400, 'One or more parameters in the payload is invalid.', [
        channel.problem,
      ]);
    }
    const details = obj(body.transaction_details);
    const problem = registrationProblem(details, obj(body.customer_details), channel);
    if (problem) {
      return coreError(reply, 400, 'One or more parameters in the payload is invalid.', [problem]);
    }
    let qrExpiryMinutes: number | undefined;
    if (body.custom_expiry !== undefined && channel === 'other_qris') {
      const e = obj(body.custom_expiry);
      const perUnit: Record<string, number> = { minute: 1, hour: 60, day: 1440 };
      const factor = typeof e.unit === 'string' ? perUnit[e.unit] : undefined;
      const d = e.expiry_duration;
      if (factor === undefined || typeof d !== 'number' || !Number.isSafeInteger(d) || d <= 0) {
        return coreError(reply, 400, 'One or more parameters in the payload is invalid.', [
          'custom_expiry.expiry_duration and custom_expiry.unit are invalid',
        ]);
      }
      if (d * factor > QR_EXPIRY_MINUTES) {
        return coreError(reply, 400, 'One or more parameters in the payload is invalid.', [
          `custom_expiry for qris cannot exceed ${QR_EXPIRY_MINUTES} minutes`,
        ]);
      }
      qrExpiryMinutes = d * factor;
    }
    const tx = await store(
      sim,
      newTransaction({
        orderId: details.order_id as string,
        flow: 'charge',
        channel,
        grossAmount: details.gross_amount as number,
        email: obj(body.customer_details).email as string,
        finishUrl: null,
        merchantId: merchantIdFor(sim.serverKey),
        now: clock.now(),
        ...(qrExpiryMinutes !== undefined ? { qrExpiryMinutes } : {}),
        customField1: typeof body.custom_field1 === 'string' ? body.custom_field1 : null,
      }),
    );
    const fault = tx && (await registrationFaultOf(sim.transactions, tx));
    if (fault === 'registration_5xx') return coreError(reply, 500, REGISTRATION_5XX_TEXT);
    if (fault === 'registration_timeout') return faultsFor(gw).loseAnswer(reply);
    if (!tx) {
      return coreError(
        reply,
        406,
        'The request could not be completed due to a conflict with the current state of the target resource, please try again',
      );
    }
    const w = transactionWire(current(tx, clock.now()), {
      simBase: publicBase(gw),
      forStatusApi: true,
    });
    const isNew = w.transaction_status === 'pending';
    return sendJson(reply, 200, {
      ...w,
      ...(isNew ? { status_code: '201', status_message: CHARGE_CREATED[channel] } : {}),
    });
  });
}
