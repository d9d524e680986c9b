import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyPluginAsync,
  type onSendHookHandler,
} from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { TrustProxy } from '../config.js';
import { isDatabaseUnavailable } from '../db/connection.js';
import { lazyChildLogger, type Logger } from '../logger.js';
import { durable } from '../db/pool.js';
import { ApiError, errorReply, type FixedTextKind } from '../domain/errors.js';
import type { Gateway } from '../gateway.js';
import { connectionsDropped } from '../metrics.js';
import { API } from './api.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { PAYMENT_ID_PATH } from './paths.js';
import { isMarkedDurable, sendError, sendText } from './reply.js';
import { mountRoutes } from './routes/route.js';

export const BODY_LIMIT = 1024 * 1024;

/** PostgreSQL's character_not_in_repertoire and untranslatable_character. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

export type HttpServer = ReturnType<typeof buildHttpServer>;

export interface RegisteredRoute {
  method: string;
  url: string;
}

const routeLists = new WeakMap<object, RegisteredRoute[]>();

/**
 * Every route the server registered, as Fastify saw it (the role-matrix test walks the admin
 * ones, so a route added without a matrix row is caught by name).
 */
export function registeredRoutes(server: HttpServer): readonly RegisteredRoute[] {
  return routeLists.get(server) ?? [];
}

/** A part the process assembly mounts beside the gateway's own routes (the simulators). */
export interface Mount {
  prefix: string;
  routes: FastifyPluginAsync;
  /** Its state is not the gateway's: its writes need no durability barrier before replying. */
  ownState: boolean;
}

export function buildHttpServer(gw: Gateway, mounts: readonly Mount[] = []) {
  const limits = gw.config.http;
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; naming the base type keeps route types default.
    loggerInstance: gw.log as FastifyBaseLogger,
    // Each request's logger is made only if it logs (logger.ts).
    childLoggerFactory: (logger, bindings, options) =>
      lazyChildLogger(logger as Logger, bindings, options) as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Slow or silent clients (docs/operations.md): a connection that sends nothing gets the
    // headers timeout too; the request timeout covers receiving, never the time we take.
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: limits.connectionsCheckIntervalMs,
    },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    trustProxy: trustProxyOption(gw.config.trustProxy),
    // Node answers malformed requests itself: in the contract's plain text instead of JSON.
    clientErrorHandler: plainTextClientError(gw.log),
    // The router's own errors (bad percent-encoding, an overlong parameter).
    // A path that does not percent-decode (an encoded lone surrogate, %FF) is refused before
    // routing; a malformed payment id is an unknown payment.
    frameworkErrors: (err, req, reply) => {
      if (err.code !== 'FST_ERR_BAD_URL') req.log.warn({ err, reqId: req.id }, 'framework error');
      if (PAYMENT_ID_PATH.test(req.url)) return sendError(reply, 'payment_not_found');
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendError(reply, 'uri_too_long');
      return sendError(reply, 'bad_request');
    },
    // Per-request access logs cost more than they tell at this volume; errors are logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Our onRequest hook answers 503 with Retry-After in plain text (docs/api.md#health-and-metrics).
    return503OnClosing: false,
  });

  app.server.maxConnections = limits.maxConnections;
  app.server.on('drop', () => connectionsDropped.inc());

  // Every body is kept as raw bytes: request and webhook signatures cover the exact bytes,
  // and JSON is parsed by the handler after authentication.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  // Callback style: on the hot path an async hook costs a promise per request.
  app.addHook('onRequest', (req, reply, done) => {
    if (gw.phase === 'ready' || req.url === '/healthz') return done();
    reply.header('Retry-After', '5');
    if (gw.phase === 'draining') reply.header('Connection', 'close');
    sendError(reply, 'unavailable');
  });

  // A kept-alive connection would hold the drain open until its idle timeout.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (gw.phase === 'draining') reply.header('Connection', 'close');
    done(null, payload);
  });

  // Nothing a state-changing request wrote is acknowledged before it is on disk (db/pool.ts).
  // Callback style: a reply already made durable (the create path's last write) passes
  // without a promise.
  const barrier: onSendHookHandler = (req, reply, payload, done) => {
    if (isMarkedDurable(req)) return done(null, payload);
    durable(gw.pool).then(
      () => done(null, payload),
      (err: unknown) => {
        req.log.error({ err, reqId: req.id }, 'durability barrier failed');
        reply.code(503).header('Retry-After', '1').type('text/plain; charset=utf-8');
        done(null, 'service unavailable');
      },
    );
  };
  const routes: RegisteredRoute[] = [];
  routeLists.set(app, routes);
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    for (const method of methods) routes.push({ method, url: route.url });
    // Reads change nothing; a mounted part with its own state (the simulators stand in for
    // providers) is not ours to make durable.
    const apart = mounts.some((m) => m.ownState && route.url.startsWith(`${m.prefix}/`));
    if (methods.every((m) => m === 'GET' || m === 'HEAD') || apart) return;
    route.onSend = [...[route.onSend ?? []].flat(), barrier];
  });

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return sendText(reply, err.status, err.body);
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // The rest of the body is not worth reading: close rather than drain it.
      reply.header('Connection', 'close');
      return sendError(reply, 'body_too_large');
    }
    if (req.url.startsWith('/webhooks/') && err.code?.startsWith('FST_ERR_CTP_')) {
      return sendError(reply, 'body_read');
    }
    if (err.statusCode === 400) return sendError(reply, 'bad_request');
    // Any other client error the framework raises keeps its status, with a neutral text.
    if (err.statusCode && err.statusCode > 400 && err.statusCode < 500) {
      return sendText(reply, err.statusCode, 'request error');
    }
    // Text PostgreSQL cannot store (a NUL byte, an unpaired surrogate) came from the client.
    if (UNSTORABLE_TEXT.has(String((err as { code?: unknown }).code))) {
      return sendError(reply, 'bad_request');
    }
    // No primary right now (a failover, a restart): nothing was acknowledged, retry as is.
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err, reqId: req.id }, 'database unavailable');
      reply.header('Retry-After', '1');
      return sendError(reply, 'unavailable');
    }
    req.log.error({ err, reqId: req.id, url: req.url.split('?')[0] }, 'unhandled error');
    return sendError(reply, 'internal');
  });

  app.setNotFoundHandler((_req, reply) => sendError(reply, 'not_found'));

  // The API (api.ts): each scope a plugin of its own, its routes registered from their
  // contracts; the same contracts make the document served at /openapi.json.
  const openApiJson = JSON.stringify(buildOpenApiDocument());
  for (const scope of API) {
    app.register(async (scoped) => {
      await scope.setup?.(scoped, gw);
      for (const group of scope.groups)
        mountRoutes(scoped, group, { gw, app: scoped, openApiJson });
    });
  }
  for (const m of mounts) app.register(m.routes, { prefix: m.prefix });
  return app;
}

/** A hop count trusts that many proxies nearest to us (Fastify's types take it as a function). */
function trustProxyOption(
  t: TrustProxy,
): boolean | string | ((addr: string, hop: number) => boolean) {
  return typeof t === 'number' ? (_addr, hop) => hop < t : t;
}

/** Node's client errors as status and plain-text body. */
function clientErrorKind(code: string | undefined): FixedTextKind {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  return 'bad_request';
}

function plainTextClientError(log: { debug(obj: object, msg: string): void }) {
  return (err: Error & { code?: string }, socket: Socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    log.debug({ code: err.code }, 'client error');
    // Node's own rule: never write into a response that has already begun on this socket.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, body } = errorReply(clientErrorKind(err.code));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  };
}
