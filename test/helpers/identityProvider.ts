/**
 * A real OpenID Provider in the test process: the `oidc-provider` package (a certified
 * implementation), never a mock of the protocol. Its development login and consent pages stand
 * in for the identity provider's own: any login name signs in, and the name is the account's
 * email (verified, unless it starts with `unverified+`).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface IdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers the gateway's redirect URI (known once the gateway listens) and starts answering. */
  allow(redirectUri: string): void;
  /** The provider's own internal errors (a test asserts there were none). */
  serverErrors: unknown[];
  stop(): Promise<void>;
}

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const server = http.createServer((_req, res) => {
    res.statusCode = 503;
    res.end('not ready');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'paygate-dashboard';
  const clientSecret = randomBytes(24).toString('hex');
  const serverErrors: unknown[] = [];
  return {
    serverErrors,
    issuer,
    clientId,
    clientSecret,
    allow(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        async findAccount(_ctx, id) {
          return {
            accountId: id,
            claims: () => ({ sub: id, email: id, email_verified: !id.startsWith('unverified+') }),
          };
        },
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        cookies: { keys: [randomBytes(16).toString('hex')] },
        // Its own signing key, made for this run (not the package's development keys).
        jwks: {
          keys: [
            {
              ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
                format: 'jwk',
              }),
              kid: 'test',
              alg: 'RS256',
              use: 'sig',
            },
          ],
        },
        ttl: {
          AccessToken: 600,
          AuthorizationCode: 60,
          IdToken: 600,
          Interaction: 600,
          Session: 3600,
          Grant: 3600,
        },
        pkce: { methods: ['S256'], required: () => true },
        features: { devInteractions: { enabled: true } },
      });
      provider.on('server_error', (_ctx, err) => serverErrors.push(err));
      server.removeAllListeners('request');
      server.on('request', provider.callback());
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Signs in at the provider's development pages as `login`, then consents. */
export async function signInAtProvider(
  page: import('playwright-core').Page,
  login: string,
): Promise<void> {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}
