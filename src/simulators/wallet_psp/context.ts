import type { SimulatorHost } from '../host.js';
import type { SimClock } from '../common.js';
import { bearerAuthorizer, type Authorize } from './auth.js';
import { walletEvents, type WalletEvents } from './events.js';
import { walletPspSim, type WalletPspSim } from './sim.js';

/** What the wallet_psp routes work with. */
export interface WalletRouteContext extends WalletEvents {
  gw: SimulatorHost;
  clock: SimClock;
  sim: WalletPspSim;
  /** Where browsers reach the simulator (the buyer's approval page). */
  publicBase(): string;
  pageUrl(id: string): string;
  authorize: Authorize;
}

export function walletRouteContext(gw: SimulatorHost, clock: SimClock): WalletRouteContext {
  const sim = walletPspSim(gw, clock);
  const publicBase = () => `${gw.urls.public}/sim/wallet_psp`;
  return {
    gw,
    clock,
    sim,
    publicBase,
    pageUrl: (id: string) => `${publicBase()}/checkoutnow?token=${encodeURIComponent(id)}`,
    authorize: bearerAuthorizer(sim, clock),
    ...walletEvents(gw, sim),
  };
}
