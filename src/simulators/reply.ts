import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseStorableJson } from '../domain/jsonInput.js';

// The simulators answer as providers do, with their own small helpers: they share no HTTP
// code with the gateway they are mounted in.

export function sendText(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(body);
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Every body is read as raw bytes (provider signatures cover exact bytes). */
export function rawBody(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A JSON body; empty is an empty object; not JSON: the 400 of parseStorableJson. */
export function jsonBody(req: FastifyRequest): unknown {
  const raw = rawBody(req);
  if (raw.length === 0) return {};
  return parseStorableJson(raw);
}
