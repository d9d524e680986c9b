import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as E from '../openapi/errors.js';
import { sendError } from '../reply.js';
import { defineRoutes, mountRoutes, params } from './route.js';

/** Where `npm run build` writes the operator dashboard (dashboard/vite.config.ts). */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));

// The bundle is ours alone: scripts, styles, fonts and data come from this origin only, and
// the admin API is the only thing it talks to.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY');
}

/**
 * The operator dashboard at /dashboard: the built single-page app from dashboard/dist.
 * A path whose last segment has a dot is a file of the build (404 when absent); any other
 * path under /dashboard is a client-side screen and gets index.html. Without a build the
 * gateway still runs and /dashboard says how to build it.
 */
export function dashboardGroup(distDir: string = DASHBOARD_DIST) {
  return defineRoutes<'root' | 'dashboard' | 'dashboardFile', unknown>(
    [
      {
        method: 'get',
        path: '/',
        operationId: 'root',
        tag: 'Dashboard',
        summary: 'Leads to the dashboard: 302 with Location /dashboard',
        security: 'none',
        ok: {
          302: {
            text: 'text/plain',
            description: 'A redirect to `/dashboard` (the `Location` header); no body.',
            example: '',
          },
        },
        errors: {},
      },
      {
        method: 'get',
        path: '/dashboard',
        operationId: 'dashboard',
        tag: 'Dashboard',
        summary: "The operator's single-page dashboard (built by npm run build)",
        security: 'none',
        ok: { 200: { text: 'text/html', description: 'The page.', example: '<!doctype html>' } },
        errors: E.DASHBOARD,
      },
      {
        method: 'get',
        path: '/dashboard/{path}',
        operationId: 'dashboardFile',
        tag: 'Dashboard',
        summary: "A file of the dashboard's build, or its page for any other path",
        security: 'none',
        parameters: [
          {
            name: 'path',
            in: 'path',
            required: true,
            schema: { type: 'string' },
            description: 'The rest of the path (it may contain slashes).',
          },
        ],
        ok: {
          200: {
            text: '*/*',
            description: 'The file (its own type), or the page as text/html.',
            example: '<!doctype html>',
          },
        },
        errors: E.DASHBOARD,
      },
    ],
    () => {
      const serve = async (rel: string, reply: FastifyReply) => {
        secure(reply);
        if (!existsSync(`${distDir}/index.html`)) {
          return sendError(reply, 'dashboard_not_built');
        }
        const last = rel.split('/').pop() ?? '';
        if (last.includes('.')) {
          // Hashed file names: a build never changes a file under the same name.
          return rel.startsWith('assets/')
            ? reply.sendFile(rel, distDir, { maxAge: '365d', immutable: true })
            : reply.sendFile(rel, distDir);
        }
        reply.header('Cache-Control', 'no-cache');
        return reply.sendFile('index.html', distDir, { cacheControl: false });
      };
      return {
        // The URL `npm start` prints leads a browser to the one page at the root of the gateway.
        root: (_req, reply) => reply.redirect('/dashboard', 302),
        dashboard: (_req, reply) => serve('', reply),
        dashboardFile: (req, reply) => serve(params(req)['*'] as string, reply),
      };
    },
  );
}

/** The dashboard's own scope: @fastify/static's sendFile, nothing served by it directly. */
export async function dashboardSetup(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, { serve: false, decorateReply: true });
}

/** The dashboard routes as one plugin (a test serves a build of its own this way). */
export function dashboardRoutes(distDir: string = DASHBOARD_DIST) {
  return async (app: FastifyInstance) => {
    await dashboardSetup(app);
    mountRoutes(app, dashboardGroup(distDir), undefined);
  };
}
