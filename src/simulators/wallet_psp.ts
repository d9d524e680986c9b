import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../gateway.js';
import type { SimClock } from './common.js';

// Placeholder until the simulator lands.
export function walletPspSimulator(_gw: Gateway, _clock: SimClock) {
  return async (_app: FastifyInstance) => {};
}
