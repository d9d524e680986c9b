import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateApp, type AuthenticatedApp } from '../../auth/appAuth.js';
import { serviceDeps, type Gateway } from '../../gateway.js';
import { createPayment } from '../../services/payments/create.js';
import { getPaymentBody } from '../../services/payments/read.js';
import { listAppEvents } from '../../services/events.js';
import { createRefund } from '../../services/refunds/create.js';
import { header, markDurable, rawBody, requestPath, sendJson } from '../reply.js';

export function v1Routes(gw: Gateway) {
  const authenticate = (req: FastifyRequest): Promise<AuthenticatedApp> =>
    authenticateApp(
      {
        method: req.method,
        path: requestPath(req),
        rawBody: rawBody(req),
        key: header(req, 'x-pay-key'),
        timestamp: header(req, 'x-pay-timestamp'),
        signature: header(req, 'x-pay-signature'),
      },
      (key) => gw.lookupAppKey(key),
      gw.now(),
      (tenant, canonical) =>
        req.log.info(
          { app_id: tenant.id, canonical_string: canonical },
          'bad signature (test mode): the gateway signed canonical_string; compare it with the string you signed',
        ),
    );

  const paymentDeps = { ...serviceDeps(gw), idrPspDirectQr: gw.config.idrPspDirectQr };

  return async (app: FastifyInstance) => {
    // Both signed POSTs: authenticate, run the idempotent use case, reply with its answer.
    const services = { '/v1/payments': createPayment, '/v1/refunds': createRefund } as const;
    for (const [path, service] of Object.entries(services)) {
      app.post(path, async (req, reply) => {
        const { app: tenant } = await authenticate(req);
        const res = await service(
          paymentDeps,
          tenant,
          rawBody(req),
          header(req, 'idempotency-key'),
        );
        if (res.durable) markDurable(req);
        return sendJson(reply, res.status, res.body);
      });
    }

    app.get<{ Querystring: Partial<Record<string, string>> }>('/v1/events', async (req, reply) => {
      const { app: tenant } = await authenticate(req);
      const first = (v: unknown) =>
        Array.isArray(v) ? (v[0] as string) : (v as string | undefined);
      const body = await listAppEvents(gw.pool, tenant.id, {
        after: first(req.query.after),
        limit: first(req.query.limit),
      });
      return sendJson(reply, 200, body);
    });

    app.get<{ Params: { payment_id: string } }>('/v1/payments/:payment_id', async (req, reply) => {
      const { app: tenant } = await authenticate(req);
      return sendJson(
        reply,
        200,
        await getPaymentBody(gw.paymentReads, gw.settledPayments, tenant, req.params.payment_id),
      );
    });
  };
}
