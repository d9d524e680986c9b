import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { header, rawBody, sendJson } from '../reply.js';
import type { Sim } from './context.js';

// The provider's side of the wire shared by its routes: the server key check, bodies and
// the two error shapes (Snap's and the Core API's).

/** An action parameter from the query string or, for the page's forms, the form body. */
export function actionParam(req: FastifyRequest, name: string): string | undefined {
  const q = req.query as Record<string, unknown> | undefined;
  const fromQuery = q?.[name];
  if (typeof fromQuery === 'string') return fromQuery;
  if ((header(req, 'content-type') ?? '').startsWith('application/x-www-form-urlencoded')) {
    return new URLSearchParams(rawBody(req).toString('utf8')).get(name) ?? undefined;
  }
  return undefined;
}

export function authorized(sim: Sim, req: FastifyRequest): boolean {
  const given = Buffer.from(header(req, 'authorization') ?? '', 'utf8');
  const expected = sim.authorization;
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function parseBody(req: FastifyRequest): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(rawBody(req).toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

export const UNAUTHORIZED =
  'Access denied due to unauthorized transaction, please check client or server key';

export function snapError(
  reply: FastifyReply,
  status: number,
  ...messages: string[]
): FastifyReply {
  return sendJson(reply, status, { error_messages: messages });
}

export function coreError(
  reply: FastifyReply,
  status: number,
  statusMessage: string,
  validation?: string[],
): FastifyReply {
  return sendJson(reply, status, {
    status_code: String(status),
    status_message: statusMessage,
    ...(validation ? { validation_messages: validation } : {}),
    id: randomUUID(),
  });
}
