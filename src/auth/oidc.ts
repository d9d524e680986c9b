/**
 * Dashboard sign-in with OpenID Connect: the authorization code flow with PKCE, through
 * openid-client (a certified relying party). This module holds no state of a sign-in: the
 * verifier and nonce are stored server-side by the caller between the two legs.
 */
import * as client from 'openid-client';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface SignInStart {
  url: string;
  state: string;
  codeVerifier: string;
  nonce: string;
}

/** What the identity provider says about the person who signed in. */
export interface SignedInIdentity {
  /** The account at the identity provider: issuer and subject, stable where the email is not. */
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export class OidcSignIn {
  private config: Promise<client.Configuration> | undefined;

  constructor(
    private readonly settings: OidcSettings,
    private readonly redirectUri: () => string,
  ) {}

  /** Discovery once per process; a failed one is tried again at the next sign-in. */
  private configuration(): Promise<client.Configuration> {
    this.config ??= (async () => {
      const issuer = new URL(this.settings.issuer);
      // Plain http is allowed only for a loopback issuer (config.ts refuses any other).
      const insecure = issuer.protocol === 'http:';
      return client.discovery(
        issuer,
        this.settings.clientId,
        undefined,
        client.ClientSecretBasic(this.settings.clientSecret),
        insecure ? { execute: [client.allowInsecureRequests] } : undefined,
      );
    })().catch((err: unknown) => {
      this.config = undefined;
      throw err;
    });
    return this.config;
  }

  async start(): Promise<SignInStart> {
    const config = await this.configuration();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri(),
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, state, codeVerifier, nonce };
  }

  /**
   * Exchanges the code (with the verifier) and checks the ID token (issuer, audience, nonce,
   * signature, expiry) — all inside openid-client. The email comes from the ID token, or from
   * the userinfo endpoint for providers that keep it there.
   */
  async finish(
    query: URLSearchParams,
    expected: { state: string; codeVerifier: string; nonce: string },
  ): Promise<SignedInIdentity> {
    const config = await this.configuration();
    const current = new URL(this.redirectUri());
    current.search = query.toString();
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: expected.codeVerifier,
      expectedState: expected.state,
      expectedNonce: expected.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    // idTokenExpected: openid-client refuses a response without an ID token, so claims are set.
    if (!claims) throw new Error('no ID token');
    const account = { issuer: claims.iss, subject: claims.sub };
    let email: unknown = claims.email;
    let verified: unknown = claims.email_verified;
    if (typeof email !== 'string') {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = info.email;
      verified = info.email_verified;
    }
    return {
      ...account,
      email: typeof email === 'string' ? email : null,
      emailVerified: verified === true,
    };
  }
}
