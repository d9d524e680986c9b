/**
 * How the gateway serves the built dashboard (src/http/routes/dashboard.ts): a fixed build
 * directory in a temporary folder, so these tests never touch dashboard/dist.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import Fastify from 'fastify';
import { dashboardRoutes } from '../../../src/http/routes/dashboard.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'paygate-dashboard-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function server(distDir: string) {
  const app = Fastify();
  app.register(dashboardRoutes(distDir));
  await app.ready();
  return app;
}

test('without a build, /dashboard and its screens answer 503 with how to build', async () => {
  const app = await server(path.join(dir, 'missing'));
  for (const url of ['/dashboard', '/dashboard/', '/dashboard/payments/abc']) {
    const res = await app.inject({ url });
    assert.equal(res.statusCode, 503, url);
    assert.equal(res.body, 'dashboard not built: run npm run build');
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  }
  await app.close();
});

test('a build: index.html for every screen, hashed assets cached for good, 404 for a missing file', async () => {
  const dist = path.join(dir, 'dist');
  mkdirSync(path.join(dist, 'assets'), { recursive: true });
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>dash</title>');
  writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  const app = await server(dist);
  for (const url of ['/dashboard', '/dashboard/', '/dashboard/apps', '/dashboard/payments/x']) {
    const res = await app.inject({ url });
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.body, '<!doctype html><title>dash</title>');
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.match(String(res.headers['content-security-policy']), /connect-src 'self'/);
  }
  const js = await app.inject({ url: '/dashboard/assets/index-abc123.js' });
  assert.equal(js.statusCode, 200);
  assert.match(String(js.headers['content-type']), /javascript/);
  assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal((await app.inject({ url: '/dashboard/assets/nope.js' })).statusCode, 404);
  assert.notEqual((await app.inject({ url: '/dashboard/..%2f..%2fpackage.json' })).statusCode, 200);
  await app.close();
});
