import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError } from '../reply.js';

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
export function dashboardRoutes(distDir: string = DASHBOARD_DIST) {
  return async (app: FastifyInstance) => {
    await app.register(fastifyStatic, { serve: false, decorateReply: true });

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

    // The URL `npm start` prints leads a browser to the one page at the root of the gateway.
    app.get('/', (_req, reply) => reply.redirect('/dashboard', 302));
    app.get('/dashboard', (_req, reply) => serve('', reply));
    app.get<{ Params: { '*': string } }>('/dashboard/*', (req, reply) =>
      serve(req.params['*'], reply),
    );
  };
}
