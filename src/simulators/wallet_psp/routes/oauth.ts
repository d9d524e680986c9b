import type { FastifyInstance } from 'fastify';
import { header, rawBody, sendJson } from '../../reply.js';
import { sameSecret } from '../auth.js';
import type { WalletRouteContext } from '../context.js';
import { newAccessToken, providerId, providerTime, TOKEN_LIFETIME_S } from '../orders.js';

/** OAuth2 client credentials: POST /v1/oauth2/token. */
export function registerOAuthRoutes(app: FastifyInstance, ctx: WalletRouteContext): void {
  const { clock, sim } = ctx;
  const { tokens } = sim;
  app.post('/v1/oauth2/token', async (req, reply) => {
    const creds = sim.credentials();
    const m = /^Basic (\S+)$/.exec(header(req, 'authorization') ?? '');
    const decoded = m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : '';
    const sep = decoded.indexOf(':');
    const clientId = sep === -1 ? '' : decoded.slice(0, sep);
    const secret = sep === -1 ? '' : decoded.slice(sep + 1);
    if (
      !sameSecret(clientId, creds.clientId ?? '') ||
      !sameSecret(secret, creds.clientSecret ?? '')
    ) {
      return sendJson(reply, 401, {
        error: 'invalid_client',
        error_description: 'Client Authentication failed',
      });
    }
    const form = new URLSearchParams(rawBody(req).toString('utf8'));
    if (form.get('grant_type') !== 'client_credentials') {
      return sendJson(reply, 400, {
        error: 'unsupported_grant_type',
        error_description: 'Grant Type is NULL or not supported',
      });
    }
    const accessToken = newAccessToken();
    await tokens.create(accessToken, {
      clientId,
      expiresAt: clock.now() + TOKEN_LIFETIME_S * 1000,
    });
    return sendJson(reply, 200, {
      scope: 'https://uri.paypal.com/services/payments/payment',
      access_token: accessToken,
      token_type: 'Bearer',
      app_id: `APP-${clientId.slice(1, 18).toUpperCase()}`,
      expires_in: TOKEN_LIFETIME_S,
      nonce: `${providerTime(clock.now())}${providerId(20)}`,
    });
  });
}
