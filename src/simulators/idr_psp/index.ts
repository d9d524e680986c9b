import type { FastifyInstance } from 'fastify';
import type { SimulatorHost } from '../host.js';
import type { SimClock } from '../common.js';
import { faultsFor } from '../faults.js';
import { simFor } from './context.js';
import { startExpirySweep } from './expiry.js';
import { registerActionRoutes } from './routes/actions.js';
import { registerChargeRoutes } from './routes/charge.js';
import { registerPageRoutes } from './routes/pages.js';
import { registerReportRoutes } from './report.js';
import { registerSnapRoutes } from './routes/snap.js';
import { registerTransactionRoutes } from './routes/transactions.js';

export { expireDueIdrTransactions } from './expiry.js';
export { buildIdrNotification } from './wire.js';

/** docs/api.md#test-mode: the idr_psp simulator (Midtrans-style Snap + Core API), mounted at /sim/idr_psp. */
export function idrPspSimulator(gw: SimulatorHost, clock: SimClock) {
  return async (app: FastifyInstance) => {
    const sim = simFor(gw, clock);
    registerSnapRoutes(app, sim);
    registerChargeRoutes(app, sim);
    registerTransactionRoutes(app, sim);
    registerPageRoutes(app, sim);
    registerActionRoutes(app, sim);
    registerReportRoutes(app, sim);
    startExpirySweep(app, gw, clock);
    app.addHook('onClose', async () => faultsFor(gw).close());
  };
}
