import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../gateway.js';
import { jsonBody, sendJson, sendText } from '../http/reply.js';
import { cardPspSimulator } from './card_psp.js';
import { idrPspSimulator } from './idr_psp.js';
import { walletPspSimulator } from './wallet_psp.js';

/** D9: the three provider simulators under /sim/<provider>/, speaking the providers' protocols. */
export function registerSimulators(gw: Gateway) {
  return async (app: FastifyInstance) => {
    const simClock = gw.simClock;
    // Moves the simulators' clock (QR expiry, refund windows); test mode only, like all of /sim.
    app.post('/clock', async (req, reply) => {
      const body = jsonBody(req) as { advance_ms?: unknown; reset?: unknown };
      if (body && typeof body === 'object' && body.reset === true) simClock.reset();
      else if (body && typeof body === 'object' && Number.isSafeInteger(body.advance_ms)) {
        simClock.advance(body.advance_ms as number);
      } else return sendText(reply, 400, 'advance_ms (integer) or reset:true required');
      return sendJson(reply, 200, { now: new Date(simClock.now()).toISOString() });
    });
    app.register(idrPspSimulator(gw, simClock), { prefix: '/idr_psp' });
    app.register(cardPspSimulator(gw, simClock), { prefix: '/card_psp' });
    app.register(walletPspSimulator(gw, simClock), { prefix: '/wallet_psp' });
  };
}
