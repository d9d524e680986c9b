/**
 * Routes declared once (docs/adr/0003-routes-declare-their-contract.md): each route's
 * contract (method, path, parameters, request schema, answers, errors) and its handler sit
 * side by side in one group. The server registers exactly the groups of src/http/api.ts,
 * and the OpenAPI document is rendered from the same groups, so a route cannot be served
 * without being documented, nor documented without being served.
 *
 * The contract is documentation and the parsers' input, never Fastify's own validation: the
 * handlers parse with the request schemas (src/domain/schemas.ts) so that the plain-text 400
 * bodies keep their exact texts and order (docs/api.md#errors).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Gateway } from '../../gateway.js';
import type { Operation } from '../openapi/types.js';
import { RESPONSE_SCHEMAS_CONFIG, type ResponseSchemasByStatus } from '../reply.js';

export type RouteHandler = (req: FastifyRequest, reply: FastifyReply) => unknown;

/** A handler, or a handler with its own body limit (provider webhooks, settlement files). */
export type RouteImpl = RouteHandler | { handler: RouteHandler; bodyLimit: number };

/** What a group's handlers are built from: the gateway, and the Fastify scope they live in. */
export interface RouteContext {
  gw: Gateway;
  app: FastifyInstance;
  /** The serialized OpenAPI document (GET /openapi.json); built once per server. */
  openApiJson: string;
}

/** Some routes: their contracts, and one handler per operationId built from the context. */
export interface RouteGroup<C = RouteContext> {
  readonly routes: readonly Operation[];
  readonly handlers: (ctx: C) => Readonly<Record<string, RouteImpl>>;
}

/**
 * A group whose handlers are checked against its contracts: the handler map must have
 * exactly one entry per operationId (a compile error otherwise).
 */
export function defineRoutes<Id extends string, C = RouteContext>(
  routes: readonly (Operation & { operationId: Id })[],
  handlers: (ctx: C) => Record<Id, RouteImpl>,
): RouteGroup<C> {
  return { routes, handlers };
}

/**
 * A Fastify plugin scope: its own setup (the admin guard, a cookie parser) and the groups
 * registered inside it.
 */
export interface RouteScope {
  readonly setup?: (app: FastifyInstance, gw: Gateway) => Promise<void>;
  readonly groups: readonly RouteGroup[];
}

/** Fastify's form of a document path: `{name}` becomes `:name`, a final `{path}` becomes `*`. */
export function fastifyUrl(path: string): string {
  return path.replace(/\{path\}$/, '*').replace(/\{([A-Za-z_]+)\}/g, ':$1');
}

/** A route's path parameters by their document names. */
export function params(req: FastifyRequest): Record<string, string> {
  return req.params as Record<string, string>;
}

/** Registers each route of the group with the handler of its operationId. */
export function mountRoutes<C>(app: FastifyInstance, group: RouteGroup<C>, ctx: C): void {
  const impls = group.handlers(ctx);
  for (const op of group.routes) {
    const impl = impls[op.operationId];
    if (!impl) throw new Error(`no handler for ${op.operationId}`);
    const { handler, bodyLimit } = typeof impl === 'function' ? { handler: impl } : impl;
    app.route({
      method: op.method.toUpperCase() as HTTPMethods,
      url: fastifyUrl(op.path),
      handler,
      config: { [RESPONSE_SCHEMAS_CONFIG]: responseSchemas(op) },
      ...(bodyLimit !== undefined ? { bodyLimit } : {}),
    });
  }
}

/**
 * The route's declared JSON answers by status: sendJson writes a body for one of these
 * statuses with the schema's compiled writer (docs/adr/0003, addendum).
 */
function responseSchemas(op: Operation): ResponseSchemasByStatus {
  const out: Record<number, ResponseSchemasByStatus[number]> = {};
  for (const [status, answer] of Object.entries(op.ok)) {
    if ('schema' in answer) out[Number(status)] = answer.schema;
  }
  return out;
}

/** Every operation of the scopes, in the order they are registered. */
export function operationsOf(scopes: readonly RouteScope[]): Operation[] {
  return scopes.flatMap((s) => s.groups.flatMap((g) => g.routes));
}
