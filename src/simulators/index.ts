import type { FastifyInstance } from 'fastify';
import { cardPspSimulator } from './card_psp/index.js';
import { SimClock } from './clock.js';
import { MAX_SIM_CLOCK_OFFSET_MS } from './common.js';
import { purgeOldSimObjects } from './db/objects.js';
import type { SimulatorHost } from './host.js';
import { idrPspSimulator } from './idr_psp/index.js';
import { jsonBody, sendJson, sendText } from './reply.js';
import { walletPspSimulator } from './wallet_psp/index.js';

export type { SimulatorHost } from './host.js';
export { SimClock } from './clock.js';

/** One set of the three simulators: their routes, and their clock (tests move it in-process). */
export interface Simulators {
  clock: SimClock;
  routes: (app: FastifyInstance) => Promise<void>;
  /**
   * Deletes a batch of their objects older than the retention; the number deleted. Mounted in
   * the gateway, its retention job calls it; on their own, their process does.
   */
  purgeOld: (retentionDays: number) => Promise<number>;
}

/**
 * docs/api.md#test-mode: the three provider simulators under /sim/<provider>/, speaking the
 * providers' protocols. The one entry the process assembly uses (src/app.ts, server.ts).
 */
export function createSimulators(gw: SimulatorHost): Simulators {
  const clock = new SimClock();
  return {
    clock,
    routes: simulatorRoutes(gw, clock),
    purgeOld: (retentionDays) => purgeOldSimObjects(gw.pool, retentionDays),
  };
}

function simulatorRoutes(gw: SimulatorHost, simClock: SimClock) {
  return async (app: FastifyInstance) => {
    // Moves the simulators' clock (QR expiry, refund windows); test mode only, like all of /sim.
    app.post('/clock', async (req, reply) => {
      const body = jsonBody(req);
      if (typeof body === 'symbol') return sendText(reply, 400, 'invalid JSON body');
      const fields = (typeof body === 'object' && body !== null ? body : {}) as {
        advance_ms?: unknown;
        reset?: unknown;
      };
      if (fields.reset === true) {
        simClock.reset();
      } else if (fields.advance_ms !== undefined) {
        const ms = fields.advance_ms;
        if (
          !Number.isSafeInteger(ms) ||
          (ms as number) < 1 ||
          (ms as number) > MAX_SIM_CLOCK_OFFSET_MS
        ) {
          return sendText(
            reply,
            400,
            `advance_ms must be an integer from 1 to ${MAX_SIM_CLOCK_OFFSET_MS}`,
          );
        }
        if (simClock.offset + (ms as number) > MAX_SIM_CLOCK_OFFSET_MS) {
          return sendText(
            reply,
            400,
            `the simulator clock cannot run more than ${MAX_SIM_CLOCK_OFFSET_MS} ms ahead; reset it first`,
          );
        }
        simClock.advance(ms as number);
      } else {
        return sendText(reply, 400, 'advance_ms (integer) or reset:true required');
      }
      return sendJson(reply, 200, { now: new Date(simClock.now()).toISOString() });
    });
    app.register(idrPspSimulator(gw, simClock), { prefix: '/idr_psp' });
    app.register(cardPspSimulator(gw, simClock), { prefix: '/card_psp' });
    app.register(walletPspSimulator(gw, simClock), { prefix: '/wallet_psp' });
  };
}
