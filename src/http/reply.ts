import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorReply, type FixedTextKind } from '../domain/errors.js';
import { parseStorableJson } from '../domain/jsonInput.js';
import { exactJson } from '../domain/exactJson.js';
import type { ResponseSchemaName } from '../domain/responseSchemas.js';
import { lenientWriterFor } from '../domain/serialize.js';

export function sendText(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(body);
}

/** One of the fixed-text errors of the table (domain/errors.ts). */
export function sendError(reply: FastifyReply, kind: FixedTextKind): FastifyReply {
  const { status, body } = errorReply(kind);
  return sendText(reply, status, body);
}

/** The route config key under which mountRoutes puts a route's response schemas by status. */
export const RESPONSE_SCHEMAS_CONFIG = 'responseSchemas';

export type ResponseSchemasByStatus = Readonly<Record<number, ResponseSchemaName>>;

/** Under the test runner, every schema-written answer is compared with the old text. */
const CHECK = process.env.PAYGATE_TEST_RUN !== undefined;

/**
 * A JSON answer. A body already written (a string) is sent as it is. Otherwise, when the
 * route declares a response schema for this status (its contract's `ok`), the body is
 * written by that schema's compiled writer (src/domain/serialize.ts, lenient: a missing
 * property is left out); else by JSON.stringify.
 */
export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(typeof body === 'string' ? body : jsonText(reply, status, body));
}

function jsonText(reply: FastifyReply, status: number, body: unknown): string {
  // A reply outside a mounted route (the not-found and error handlers) has no such config.
  const config = reply.request.routeOptions?.config as
    { [RESPONSE_SCHEMAS_CONFIG]?: ResponseSchemasByStatus } | undefined;
  const name = config?.[RESPONSE_SCHEMAS_CONFIG]?.[status];
  if (name === undefined || body === undefined) {
    return JSON.stringify(body);
  }
  const text = lenientWriterFor(name)(body);
  if (CHECK) {
    const old = exactJson(body);
    if (text !== old) {
      throw new Error(`schema ${name} writes a different answer:\n${text}\ninstead of\n${old}`);
    }
  }
  return text;
}

/** A request without a body (every GET): no bytes, so nothing can be written into it. */
const NO_BODY = Buffer.alloc(0);

/** The raw request bytes: every body is read as a Buffer (signatures cover exact bytes). */
export function rawBody(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : NO_BODY;
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
