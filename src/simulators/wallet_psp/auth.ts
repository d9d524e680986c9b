import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { header, sendJson } from '../reply.js';
import type { SimClock } from '../common.js';
import type { SimToken } from './orders.js';
import type { WalletPspSim } from './sim.js';

/** Compares two secrets in constant time whatever their lengths. */
export function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export type Authorize = (req: FastifyRequest, reply: FastifyReply) => Promise<SimToken | null>;

export function bearerAuthorizer(sim: WalletPspSim, clock: SimClock): Authorize {
  const { tokens } = sim;
  /** Bearer token of an API call, or null after answering 401 as the provider does. */
  async function authorize(req: FastifyRequest, reply: FastifyReply): Promise<SimToken | null> {
    const auth = header(req, 'authorization') ?? '';
    const m = /^Bearer (\S+)$/.exec(auth);
    const token = m?.[1] ? await tokens.get(m[1]) : null;
    if (!token || token.expiresAt <= clock.now()) {
      sendJson(reply, 401, {
        error: 'invalid_token',
        error_description: token ? 'Access Token expired' : 'Token signature verification failed',
      });
      return null;
    }
    return token;
  }
  return authorize;
}
