import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../gateway.js';

// Placeholder until the simulator lands.
export function cardPspSimulator(_gw: Gateway) {
  return async (_app: FastifyInstance) => {};
}
