/**
 * Dashboard sign-in with OpenID Connect and sign-out (docs/operations.md#single-sign-on). The
 * callback answers a browser: success is a redirect to the dashboard with the session
 * cookie; a failure is the plain-text 401 `sign-in failed: <why>`, and costs the source one
 * failed authentication like a bad token (429 with Retry-After past the limit).
 */
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { OidcSignIn } from '../../auth/oidc.js';
import { safeEqual } from '../../auth/crypto.js';
import { apiError } from '../../domain/errors.js';
import {
  finishSignIn,
  IdentityProviderUnavailable,
  signOut,
  SIGN_IN_MAX_AGE_MS,
  startSignIn,
} from '../../services/sessions.js';
import * as E from '../openapi/errors.js';
import { header, sendJson } from '../reply.js';
import { defineRoutes } from './route.js';
import { authGuard, CSRF_HEADER, sessionCookie, sessionCookieOf, throttled } from './adminGuard.js';

/** Binds a sign-in to the browser that started it (login CSRF). Lax: it must come back with the
 * identity provider's redirect, a cross-site navigation. */
const STATE_COOKIE = 'paygate_oidc_state';
const CALLBACK_PATH = '/auth/oidc/callback';

/** The sign-in routes' own scope: cookies parsed on demand, never for every request. */
export async function signInSetup(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie, { hook: false });
}

export const signInRoutes = defineRoutes(
  [
    {
      method: 'get',
      path: '/auth/methods',
      operationId: 'signInMethods',
      tag: 'Sign-in',
      summary: 'Whether single sign-on is configured (the dashboard shows its button)',
      security: 'none',
      ok: { 200: { schema: 'AuthMethods', description: 'The methods.', example: { oidc: true } } },
      errors: {},
    },
    {
      method: 'get',
      path: '/auth/oidc/start',
      operationId: 'signInStart',
      tag: 'Sign-in',
      summary: 'Starts an OpenID Connect sign-in: 302 to the identity provider (code flow, PKCE)',
      security: 'none',
      ok: {
        302: {
          text: 'text/plain',
          description: "A redirect to the identity provider's authorization endpoint; no body.",
          example: '',
        },
      },
      errors: E.fixed('not_found', 'too_many_failed_authentications'),
    },
    {
      method: 'get',
      path: CALLBACK_PATH,
      operationId: 'signInCallback',
      tag: 'Sign-in',
      summary:
        'Where the identity provider returns: 302 to /dashboard with the session cookie, or 401',
      description:
        'The session cookie is HttpOnly, SameSite=Strict, Secure behind https; it ends after SESSION_IDLE_MINUTES unused or SESSION_MAX_HOURS, or at sign-out.',
      security: 'none',
      ok: {
        302: {
          text: 'text/plain',
          description: 'A redirect to /dashboard; no body.',
          example: '',
        },
      },
      errors: E.SIGN_IN_FAILED,
    },
    {
      method: 'post',
      path: '/auth/sign-out',
      operationId: 'signOut',
      tag: 'Sign-in',
      summary: 'Ends the dashboard session on the server (needs X-CSRF-Token)',
      security: 'none',
      ok: {
        204: { empty: true, description: 'Signed out (or there was no session); no body.' },
      },
      errors: E.merge(E.CSRF, E.WITH_BODY),
    },
  ],
  ({ gw, app }) => {
    const settings = gw.config.operatorAuth;
    const oidc = settings.oidc
      ? new OidcSignIn(settings.oidc, () => `${gw.urls.public}${CALLBACK_PATH}`)
      : undefined;
    const now = () => new Date(gw.now());
    const secure = () => sessionCookie(gw).secure;
    const clearSession = (reply: FastifyReply) =>
      reply.clearCookie(sessionCookie(gw).name, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: secure(),
      });
    return {
      signInMethods: async (_req, reply) => sendJson(reply, 200, { oidc: oidc !== undefined }),

      signInStart: async (req, reply) => {
        if (!oidc) throw apiError('not_found');
        if (gw.adminAuthFailures.check(req.ip) !== 'open') throw throttled(gw, req.ip);
        // Each start stores a row until its callback: it costs the source one allowance, given
        // back when the sign-in succeeds, so one address cannot fill the table.
        gw.adminAuthFailures.spend(req.ip);
        let started;
        try {
          started = await startSignIn(gw.pool, oidc, now());
        } catch (err) {
          if (!(err instanceof IdentityProviderUnavailable)) throw err;
          req.log.error({ err: err.cause, reqId: req.id }, 'identity provider unreachable');
          throw apiError('unavailable').withHeaders({ 'Retry-After': '5' });
        }
        reply.setCookie(STATE_COOKIE, started.state, {
          path: CALLBACK_PATH,
          httpOnly: true,
          sameSite: 'lax',
          secure: secure(),
          maxAge: SIGN_IN_MAX_AGE_MS / 1000,
        });
        return reply.redirect(started.url, 302);
      },

      signInCallback: async (req, reply) => {
        if (!oidc) throw apiError('not_found');
        if (gw.adminAuthFailures.check(req.ip) !== 'open') throw throttled(gw, req.ip);
        const cookies = app.parseCookie(header(req, 'cookie') ?? '');
        reply.clearCookie(STATE_COOKIE, { path: CALLBACK_PATH });
        const query = new URLSearchParams(req.url.split('?')[1] ?? '');
        let session;
        try {
          session = await finishSignIn(
            gw.pool,
            oidc,
            query,
            cookies[STATE_COOKIE],
            now(),
            {
              idleMs: settings.sessionIdleMinutes * 60_000,
              maxMs: settings.sessionMaxHours * 3_600_000,
            },
            { requestId: String(req.id), sourceIp: req.ip },
          );
        } catch (err) {
          if ((err as { kind?: unknown }).kind === 'sign_in_failed')
            gw.adminAuthFailures.spend(req.ip);
          throw err;
        }
        gw.adminAuthFailures.giveBack(req.ip);
        reply.setCookie(sessionCookie(gw).name, session.cookieValue, {
          path: '/',
          httpOnly: true,
          sameSite: 'strict',
          secure: secure(),
          maxAge: settings.sessionMaxHours * 3600,
        });
        return reply.redirect('/dashboard', 302);
      },

      // Ends the session on the server, so a copy of the cookie stops working too.
      signOut: async (req, reply) => {
        const value = sessionCookieOf(gw, app, req);
        const actor = value ? await authGuard(gw, req.log).useSession(value) : null;
        if (value && actor?.kind === 'operator') {
          const sent = header(req, CSRF_HEADER);
          if (sent === undefined || actor.csrfToken === null || !safeEqual(sent, actor.csrfToken)) {
            throw apiError('csrf_failed');
          }
          await signOut(gw.pool, value, now(), {
            requestId: String(req.id),
            sourceIp: req.ip,
            actor: { id: actor.id, email: actor.email, tokenName: null },
          });
        }
        clearSession(reply);
        return reply.code(204).send();
      },
    };
  },
);
