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
import type { Gateway } from '../../gateway.js';
import {
  finishSignIn,
  IdentityProviderUnavailable,
  signOut,
  SIGN_IN_MAX_AGE_MS,
  startSignIn,
} from '../../services/sessions.js';
import { header, sendJson } from '../reply.js';
import { authGuard, CSRF_HEADER, sessionCookie, sessionCookieOf, throttled } from './adminGuard.js';

/** Binds a sign-in to the browser that started it (login CSRF). Lax: it must come back with the
 * identity provider's redirect, a cross-site navigation. */
const STATE_COOKIE = 'paygate_oidc_state';
const CALLBACK_PATH = '/auth/oidc/callback';

export function signInRoutes(gw: Gateway) {
  const settings = gw.config.operatorAuth;
  const oidc = settings.oidc
    ? new OidcSignIn(settings.oidc, () => `${gw.urls.public}${CALLBACK_PATH}`)
    : undefined;
  const now = () => new Date(gw.now());
  return async (app: FastifyInstance) => {
    await app.register(fastifyCookie, { hook: false });
    const secure = () => sessionCookie(gw).secure;
    const clearSession = (reply: FastifyReply) =>
      reply.clearCookie(sessionCookie(gw).name, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: secure(),
      });

    app.get('/auth/methods', async (_req, reply) =>
      sendJson(reply, 200, { oidc: oidc !== undefined }),
    );

    app.get('/auth/oidc/start', async (req, reply) => {
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
    });

    app.get(CALLBACK_PATH, async (req, reply) => {
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
    });

    // Ends the session on the server, so a copy of the cookie stops working too.
    app.post('/auth/sign-out', async (req, reply) => {
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
    });
  };
}
