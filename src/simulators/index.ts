import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../gateway.js';
import { cardPspSimulator } from './card_psp.js';
import { idrPspSimulator } from './idr_psp.js';
import { walletPspSimulator } from './wallet_psp.js';

/** D9: the three provider simulators under /sim/<provider>/, speaking the providers' protocols. */
export function registerSimulators(gw: Gateway) {
  return async (app: FastifyInstance) => {
    app.register(idrPspSimulator(gw), { prefix: '/idr_psp' });
    app.register(cardPspSimulator(gw), { prefix: '/card_psp' });
    app.register(walletPspSimulator(gw), { prefix: '/wallet_psp' });
  };
}
