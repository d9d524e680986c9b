/** docs/api.md#provider-webhooks: POST /webhooks/<provider>, unversioned, authenticated by the provider's signature. */
import { ApiError } from '../../domain/errors.js';
import { PROVIDERS, type ProviderSlug as Provider } from '../../domain/types.js';
import { serviceDeps } from '../../gateway.js';
import { handleProviderWebhook } from '../../services/inbound.js';
import * as E from '../openapi/errors.js';
import type { Operation, Param } from '../openapi/types.js';
import { markDurable, rawBody, sendJson } from '../reply.js';
import { defineRoutes, type RouteImpl } from './route.js';

const header = (name: string, description: string): Param => ({
  name,
  in: 'header',
  required: true,
  schema: { type: 'string' },
  description: `${description} Absent or wrong: 401 bad signature.`,
});

/** The signature headers each provider sends (docs/providers/<slug>.md). */
const PROVIDER_HEADERS: Record<Provider, Param[]> = {
  // idr_psp signs inside the body (signature_key).
  idr_psp: [],
  card_psp: [
    header('webhook-id', 'Standard Webhooks message id.'),
    header('webhook-timestamp', 'Unix seconds, within 5 minutes.'),
    header('webhook-signature', 'Space-separated v1,<base64 HMAC-SHA256> entries.'),
  ],
  wallet_psp: [
    header('paypal-transmission-id', 'The transmission id.'),
    header('paypal-transmission-time', 'The transmission time.'),
    header('paypal-transmission-sig', 'Base64 RSA signature.'),
    header('paypal-cert-url', "A certificate URL of the provider's configured environment."),
    header('paypal-auth-algo', 'Exactly SHA256withRSA.'),
  ],
};

const operationId = (slug: Provider) =>
  `${slug.replace(/_(.)/g, (_m, c: string) => c.toUpperCase())}Webhook`;

export const webhookRoutes = defineRoutes<string>(
  PROVIDERS.map((slug): Operation => ({
    method: 'post',
    path: `/webhooks/${slug}`,
    operationId: operationId(slug),
    tag: 'Provider webhooks',
    summary: `Events from ${slug}`,
    description: `Authenticated by ${slug}'s own signature scheme and secret, checked under every mode configured for it (docs/providers/${slug}.md). The raw body is archived before anything else.`,
    security: 'none',
    parameters: PROVIDER_HEADERS[slug],
    rawBody: {
      description: `${slug}'s own event format, read as raw bytes (docs/providers/${slug}.md).`,
    },
    ok: {
      200: {
        schema: 'WebhookAck',
        description:
          'Acknowledged; action none: nothing to change; already_finalized: already terminal.',
        example: { acknowledged: true },
      },
    },
    errors: E.PROVIDER_WEBHOOK,
  })),
  ({ gw }) => {
    const deps = {
      ...serviceDeps(gw),
      limits: gw.config.webhooks,
      unverified: gw.unverifiedWebhooks,
    };
    const impl = (slug: Provider): RouteImpl => ({
      // Each provider's own size bound, enforced while the body is read (413 body too large).
      bodyLimit: gw.config.webhooks.bodyLimitBytes[slug],
      handler: async (req, reply) => {
        try {
          const ack = await handleProviderWebhook(deps, slug, req.headers, rawBody(req), req.ip);
          // Its last write (the archived outcome, or the finalization recording it) committed
          // synchronously.
          markDurable(req);
          return sendJson(reply, 200, ack);
        } catch (err) {
          // Refused before anything was written: no durability barrier to wait for.
          if (err instanceof ApiError && err.status === 429) markDurable(req);
          throw err;
        }
      },
    });
    return Object.fromEntries(PROVIDERS.map((slug) => [operationId(slug), impl(slug)]));
  },
);
