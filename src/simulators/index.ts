import type { FastifyInstance } from 'fastify';
import { cardPspSimulator } from './card_psp/index.js';
import { SimClock } from './clock.js';
import { MAX_SIM_CLOCK_OFFSET_MS } from './common.js';
import { purgeOldSimObjects } from './db/objects.js';
import { migrateSimulators } from './db/migrate.js';
import { analyseSimObjectsIfGrown } from './db/planGuard.js';
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
   * Applies their own migrations (schema paygate_sim, db/migrate.ts) before they serve; the
   * names applied. Mounted in the gateway, it calls this at its start, after its own
   * migrations; their own process calls it at its start.
   */
  start: () => Promise<string[]>;
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
    start: () => migrateSimulators(gw.pool),
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
    startPlanGuard(app, gw);
    app.register(idrPspSimulator(gw, simClock), { prefix: '/idr_psp' });
    app.register(cardPspSimulator(gw, simClock), { prefix: '/card_psp' });
    app.register(walletPspSimulator(gw, simClock), { prefix: '/wallet_psp' });
  };
}

const PLAN_GUARD_EVERY_MS = 2_000;

/** Their table's statistics kept up with its size while the host is ready (db/planGuard.ts). */
function startPlanGuard(app: FastifyInstance, gw: SimulatorHost): void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy || gw.phase !== 'ready') return;
    busy = true;
    analyseSimObjectsIfGrown(gw.pool)
      .then((outcome) => {
        // ANALYZE skips a table the role does not own: not tried again.
        if (outcome === 'refused') clearInterval(timer);
      })
      .catch((err: unknown) => gw.log.warn({ err }, 'simulators: plan guard failed'))
      .finally(() => {
        busy = false;
      });
  }, PLAN_GUARD_EVERY_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
