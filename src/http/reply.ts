import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorReply, type FixedTextKind } from '../domain/errors.js';
import { parseStorableJson } from '../domain/jsonInput.js';

export function sendText(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(body);
}

/** One of the fixed-text errors of the table (domain/errors.ts). */
export function sendError(reply: FastifyReply, kind: FixedTextKind): FastifyReply {
  const { status, body } = errorReply(kind);
  return sendText(reply, status, body);
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(typeof body === 'string' ? body : JSON.stringify(body));
}

/** The raw request bytes: every body is read as a Buffer (signatures cover exact bytes). */
export function rawBody(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/** The request path without its query string (docs/api.md#request-signing: the signed path). */
export function requestPath(req: FastifyRequest): string {
  const q = req.url.indexOf('?');
  return q === -1 ? req.url : req.url.slice(0, q);
}

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Parses a JSON body for admin routes; an empty body is an empty object. Throws the 400 of
 * parseStorableJson for a body that is not JSON or holds something the database refuses.
 */
export function jsonBody(req: FastifyRequest): unknown {
  const raw = rawBody(req);
  if (raw.length === 0) return {};
  return parseStorableJson(raw);
}

const durableReplies = new WeakSet<FastifyRequest>();

/**
 * The handler's last write committed synchronously after all its other writes, so the
 * reply needs no separate durability barrier (db/pool.ts).
 */
export function markDurable(req: FastifyRequest): void {
  durableReplies.add(req);
}

export function isMarkedDurable(req: FastifyRequest): boolean {
  return durableReplies.has(req);
}
