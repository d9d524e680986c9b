import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type onSendAsyncHookHandler,
} from 'fastify';
import { durable } from '../db/pool.js';
import { ApiError } from '../domain/errors.js';
import type { Gateway } from '../gateway.js';
import { registerSimulators } from '../simulators/index.js';
import { isMarkedDurable, sendText } from './reply.js';
import { adminRoutes, metricsRoute } from './routes/admin.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { healthRoutes } from './routes/health.js';
import { v1Routes } from './routes/v1.js';
import { webhookRoutes } from './routes/webhooks.js';

export const BODY_LIMIT = 1024 * 1024;

export type HttpServer = ReturnType<typeof buildHttpServer>;

export function buildHttpServer(gw: Gateway) {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; naming the base type keeps route types default.
    loggerInstance: gw.log as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Per-request access logs cost more than they tell at this volume; errors are logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Our onRequest hook answers 503 with Retry-After in the contract's plain text (D10).
    return503OnClosing: false,
    // A path that does not percent-decode (an encoded lone surrogate, %FF) is refused before
    // routing; its answer is plain text like every other error, not Fastify's JSON.
    frameworkErrors: (err, req, reply) => {
      if (err.code !== 'FST_ERR_BAD_URL') req.log.warn({ err, reqId: req.id }, 'framework error');
      sendText(reply, 400, 'bad request');
    },
  });

  // Every body is kept as raw bytes: request and webhook signatures cover the exact bytes,
  // and JSON is parsed by the handler after authentication.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  // Callback style: on the hot path an async hook costs a promise per request.
  app.addHook('onRequest', (req, reply, done) => {
    if (gw.phase === 'ready' || req.url === '/healthz') return done();
    reply.header('Retry-After', '5');
    if (gw.phase === 'draining') reply.header('Connection', 'close');
    sendText(reply, 503, 'service unavailable');
  });

  // A kept-alive connection would hold the drain open until its idle timeout.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (gw.phase === 'draining') reply.header('Connection', 'close');
    done(null, payload);
  });

  // Nothing a state-changing request wrote is acknowledged before it is on disk (db/pool.ts).
  const barrier: onSendAsyncHookHandler = async (req, reply, payload) => {
    if (isMarkedDurable(req)) return payload;
    try {
      await durable(gw.pool);
    } catch (err) {
      req.log.error({ err, reqId: req.id }, 'durability barrier failed');
      reply.code(503).header('Retry-After', '1').type('text/plain; charset=utf-8');
      return 'service unavailable';
    }
    return payload;
  };
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    // Reads change nothing; the simulators stand in for providers, their state is not ours.
    if (methods.every((m) => m === 'GET' || m === 'HEAD') || route.url.startsWith('/sim/')) return;
    route.onSend = [...[route.onSend ?? []].flat(), barrier];
  });

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return sendText(reply, err.status, err.body);
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendText(reply, 413, 'body too large');
    if (req.url.startsWith('/webhooks/') && err.code?.startsWith('FST_ERR_CTP_')) {
      return sendText(reply, 400, 'body read');
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendText(
        reply,
        err.statusCode,
        err.statusCode === 400 ? 'bad request' : 'request error',
      );
    }
    req.log.error({ err, reqId: req.id, url: req.url.split('?')[0] }, 'unhandled error');
    return sendText(reply, 500, 'internal error');
  });

  app.setNotFoundHandler((_req, reply) => sendText(reply, 404, 'not found'));

  app.register(healthRoutes(gw));
  app.register(v1Routes(gw));
  app.register(webhookRoutes(gw));
  app.register(adminRoutes(gw), { prefix: '/admin' });
  app.register(metricsRoute(gw));
  app.register(dashboardRoutes());
  if (gw.config.simulators) app.register(registerSimulators(gw), { prefix: '/sim' });
  return app;
}
