import type { FastifyReply } from 'fastify';

// The provider's answers shared by its routes: JSON errors as the provider shapes them.

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function validationError(
  reply: FastifyReply,
  loc: (string | number)[],
  msg: string,
  type: string,
) {
  return reply
    .code(422)
    .type('application/json')
    .send(JSON.stringify({ error: 'RequestValidationError', detail: [{ loc, msg, type }] }));
}

export function apiError(reply: FastifyReply, status: number, error: string, detail: string) {
  return reply.code(status).type('application/json').send(JSON.stringify({ error, detail }));
}

export function text(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type('text/plain; charset=utf-8').send(body);
}
