import type { FastifyInstance } from 'fastify';
import type { SimulatorHost } from '../host.js';
import type { SimClock } from '../common.js';
import { walletRouteContext } from './context.js';
import { registerRefundRoutes } from './routes/refunds.js';
import { registerReportingRoutes } from './reporting.js';
import { registerActionRoutes } from './routes/actions.js';
import { registerCaptureRoutes } from './routes/capture.js';
import { registerDisputeRoutes } from './routes/disputes.js';
import { registerNotificationRoutes } from './routes/notifications.js';
import { registerOAuthRoutes } from './routes/oauth.js';
import { registerOrderRoutes } from './routes/orders.js';
import { registerPageRoutes } from './routes/page.js';

export { walletPspSim, type WalletPspSim } from './sim.js';

/**
 * The wallet provider simulator (PayPal REST style): OAuth2 client credentials, Orders v2
 * create/get/capture, webhook certificates, the buyer's approval page and the scripted
 * buyer actions of docs/api.md#test-mode; capture refunds in refunds.ts, the reporting API
 * (balances, payouts) in reporting.ts.
 */
export function walletPspSimulator(gw: SimulatorHost, clock: SimClock) {
  const ctx = walletRouteContext(gw, clock);
  const { sim, authorize, deliver } = ctx;
  return async (app: FastifyInstance) => {
    registerRefundRoutes(app, {
      gw,
      clock,
      apiBase: sim.apiBase,
      orders: sim.orders,
      authorize,
      deliver,
    });
    registerReportingRoutes(app, { gw, clock, authorize });
    registerNotificationRoutes(app, ctx);
    registerOAuthRoutes(app, ctx);
    registerOrderRoutes(app, ctx);
    registerCaptureRoutes(app, ctx);
    registerPageRoutes(app, ctx);
    registerActionRoutes(app, ctx);
    registerDisputeRoutes(app, ctx);
  };
}
