/**
 * GET /openapi.json on a real gateway, and the document against the server's own route table:
 * every route the gateway serves is documented with its method, and every documented
 * operation is served.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RouteOptions } from 'fastify';
import { buildHttpServer } from '../../../src/http/server.js';
import { buildOpenApiDocument } from '../../../src/http/openapi/document.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(() => gw.stop());

test('GET /openapi.json: the document, as JSON, without authentication', async () => {
  const res = await fetch(`${gw.url}/openapi.json`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.deepEqual(await res.json(), buildOpenApiDocument());
});

test('every route of the server is in the document, and every operation is a route', async () => {
  // A second server over the same gateway, never listening: its route table is the real one.
  const app = buildHttpServer(gw.running.gw);
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (r) => {
    routes.push(r);
  });
  await app.ready();
  const served = new Set<string>();
  for (const r of routes) {
    if (r.url.startsWith('/sim/') || r.url === '/sim') continue;
    const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\*$/, '{path}');
    for (const m of [r.method].flat()) {
      if (m === 'HEAD') continue;
      served.add(`${m} ${path}`);
    }
  }
  await app.close();
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(
    buildOpenApiDocument().paths as Record<string, object>,
  )) {
    for (const m of Object.keys(item)) documented.add(`${m.toUpperCase()} ${path}`);
  }
  // Route parameter names may differ from the document's ({id} for {payment_id}).
  const shape = (s: string) => s.replace(/\{[^}]+\}/g, '{}');
  assert.deepEqual([...served].map(shape).sort(), [...documented].map(shape).sort());
  assert.ok(served.size > 30, `${served.size} routes`);
});
