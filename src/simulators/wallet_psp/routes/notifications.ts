import type { FastifyInstance } from 'fastify';
import { rawBody, sendJson, sendText } from '../../reply.js';
import type { WalletRouteContext } from '../context.js';
import { apiError } from '../orders.js';
import { sendApiError } from '../protocol.js';
import { certPath, verifyTransmission } from '../signing.js';

/** Webhook certificates and the provider's own signature check. */
export function registerNotificationRoutes(app: FastifyInstance, ctx: WalletRouteContext): void {
  const { sim, authorize } = ctx;
  // The provider's own check of a webhook delivery, for merchants that do not verify the
  // certificate themselves (the adapter's fallback).
  app.post('/v1/notifications/verify-webhook-signature', async (req, reply) => {
    if (!(await authorize(req, reply))) return reply;
    let body: unknown;
    try {
      body = JSON.parse(rawBody(req).toString('utf8'));
    } catch {
      body = null;
    }
    const fields = [
      'auth_algo',
      'cert_url',
      'transmission_id',
      'transmission_sig',
      'transmission_time',
      'webhook_id',
    ];
    const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const missing = fields.find((f) => typeof b[f] !== 'string' || b[f] === '');
    const event = b.webhook_event;
    if (missing || typeof event !== 'object' || event === null) {
      return sendApiError(
        reply,
        apiError(400, {
          field: missing ?? 'webhook_event',
          location: 'body',
          issue: 'MISSING_REQUIRED_PARAMETER',
          description: 'A required field is missing.',
        }),
      );
    }
    const status = verifyTransmission(await sim.signingKey(), sim.credentials().webhookId ?? '', b);
    return sendJson(reply, 200, { verification_status: status });
  });

  app.get<{ Params: { name: string } }>('/v1/notifications/certs/:name', async (req, reply) => {
    const key = await sim.signingKey();
    if (certPath(key.keyId) !== `/v1/notifications/certs/${req.params.name}`) {
      return sendText(reply, 404, 'not found');
    }
    return reply.code(200).type('application/x-pem-file').send(key.certificatePem);
  });
}
