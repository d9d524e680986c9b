/**
 * Who may use an admin route (docs/api.md#admin-authentication): the credential (ADMIN_TOKEN,
 * a personal token, or the dashboard's session cookie with its CSRF token on changes), then
 * the role matrix (src/auth/roles.ts). The actor it finds is what the audit log records.
 */
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateAdminFrom, limited, type Actor } from '../../auth/adminAuth.js';
import { safeEqual } from '../../auth/crypto.js';
import { roleAllows, ruleFor } from '../../auth/roles.js';
import { adminTokenEnabled } from '../../db/operators.js';
import { apiError } from '../../domain/errors.js';
import type { Gateway } from '../../gateway.js';
import { adminAuthRateLimited } from '../../metrics.js';
import {
  auditFor,
  ROOT_ACTOR,
  type Audit,
  type AuditAction,
  type AuditActor,
} from '../../services/audit.js';
import { useOperatorToken } from '../../services/operators.js';
import { useSession } from '../../services/sessions.js';
import { header, markDurable } from '../reply.js';

export const CSRF_HEADER = 'x-csrf-token';

const actors = new WeakMap<FastifyRequest, Actor>();

/** The actor the guard found for this request; a route outside the guard has none (a bug). */
export function actorOf(req: FastifyRequest): Actor {
  const actor = actors.get(req);
  if (!actor) throw new Error('an admin request without an authenticated actor');
  return actor;
}

/**
 * The setup of every admin route and /metrics: a credential (ADMIN_TOKEN, a personal token,
 * a dashboard session) and the role matrix. Cookies are parsed here only, when a request has
 * no Authorization header; the plugin is scoped to these routes.
 */
export async function guarded(app: FastifyInstance, gw: Gateway): Promise<void> {
  await app.register(fastifyCookie, { hook: false });
  app.addHook('onRequest', async (req) => {
    await guardAdmin(gw, app, req);
  });
}

/**
 * The request's audit writer: who acted (the guard's actor), Fastify's request id, the socket
 * address (trustProxy applies).
 */
export function requestAudit(req: FastifyRequest, action: AuditAction): Audit {
  return auditFor(
    { requestId: String(req.id), sourceIp: req.ip, actor: auditActor(actorOf(req)) },
    action,
  );
}

export function auditActor(actor: Actor): AuditActor {
  if (actor.kind === 'root') return ROOT_ACTOR;
  return { id: actor.id, email: actor.email, tokenName: actor.tokenName };
}

/** HttpOnly, SameSite=Strict; Secure (and the __Host- prefix) when the dashboard is served over https. */
export function sessionCookie(gw: Gateway): { name: string; secure: boolean } {
  const secure = gw.urls.public.startsWith('https:');
  return { name: secure ? '__Host-paygate_session' : 'paygate_session', secure };
}

/** The session cookie's value, when the request carries one. */
export function sessionCookieOf(gw: Gateway, app: FastifyInstance, req: FastifyRequest) {
  const raw = header(req, 'cookie');
  if (raw === undefined) return undefined;
  return app.parseCookie(raw)[sessionCookie(gw).name];
}

export function authGuard(gw: Gateway, log: FastifyRequest['log']) {
  const now = () => new Date(gw.now());
  return {
    adminToken: gw.config.adminToken,
    failures: gw.adminAuthFailures,
    log,
    onLimited: () => adminAuthRateLimited.inc(),
    adminTokenEnabled: () => adminTokenEnabled(gw.pool),
    useToken: (secret: string) => useOperatorToken(gw.pool, secret, now()),
    useSession: (value: string) =>
      useSession(gw.pool, value, now(), gw.config.operatorAuth.sessionIdleMinutes * 60_000),
  };
}

/** 429 for a source over its failed authentications (shared with the sign-in callback). */
export function throttled(gw: Gateway, source: string) {
  return limited({ failures: gw.adminAuthFailures }, source);
}

const READS = new Set(['GET', 'HEAD']);

function firstParam(req: FastifyRequest): string | undefined {
  const params = req.params as Record<string, string> | undefined;
  return params ? Object.values(params)[0] : undefined;
}

/** Authenticates and authorizes one admin request; throws its 401, 403 or 429. */
export async function guardAdmin(
  gw: Gateway,
  app: FastifyInstance,
  req: FastifyRequest,
): Promise<Actor> {
  try {
    const actor = await authenticateAdminFrom(
      authGuard(gw, req.log),
      {
        authorization: header(req, 'authorization'),
        sessionCookie: sessionCookieOf(gw, app, req),
      },
      req.ip,
    );
    if (actor.kind === 'operator') {
      // The cookie comes with every request the browser makes; the CSRF token only with the
      // dashboard's own (a page of another site cannot read it).
      if (actor.csrfToken !== null && !READS.has(req.method)) {
        const sent = header(req, CSRF_HEADER);
        if (sent === undefined || !safeEqual(sent, actor.csrfToken)) throw apiError('csrf_failed');
      }
      const rule = ruleFor(req.method, req.routeOptions.url ?? req.url);
      const self = rule.orSelf === true && firstParam(req) === actor.id;
      if (!roleAllows(actor.role, rule.role) && !self) {
        throw apiError('forbidden', actor.role, rule.action);
      }
    }
    actors.set(req, actor);
    return actor;
  } catch (err) {
    // Refused before anything was written: no durability barrier to wait for.
    markDurable(req);
    throw err;
  }
}
