/**
 * The route-definition module (src/http/routes/route.ts, docs/adr/0003): a contract's path
 * becomes Fastify's URL, each contract is registered with the handler of its operationId and
 * its own body limit, and the API's contracts are unique, so the document rendered from them
 * has one operation per route.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { API } from '../../src/http/api.js';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';
import type { Operation } from '../../src/http/openapi/types.js';
import {
  defineRoutes,
  fastifyUrl,
  mountRoutes,
  operationsOf,
  params,
} from '../../src/http/routes/route.js';

test("a contract's path in Fastify's form", () => {
  assert.equal(fastifyUrl('/v1/payments'), '/v1/payments');
  assert.equal(fastifyUrl('/admin/apps/{app_id}'), '/admin/apps/:app_id');
  assert.equal(
    fastifyUrl('/admin/operators/{operator_id}/tokens/{token_id}/revoke'),
    '/admin/operators/:operator_id/tokens/:token_id/revoke',
  );
  assert.equal(fastifyUrl('/dashboard/{path}'), '/dashboard/*');
});

test('the API: one contract per method and path, one operationId each, all documented', () => {
  const ops = operationsOf(API);
  assert.ok(ops.length > 60, `${ops.length} operations`);
  const keys = ops.map((o) => `${o.method} ${o.path}`);
  assert.equal(new Set(keys).size, keys.length, 'a method and path declared twice');
  const ids = ops.map((o) => o.operationId);
  assert.equal(new Set(ids).size, ids.length, 'an operationId declared twice');
  const paths = buildOpenApiDocument().paths as Record<string, Record<string, unknown>>;
  const documented = Object.entries(paths).flatMap(([p, item]) =>
    Object.keys(item).map((m) => `${m} ${p}`),
  );
  assert.deepEqual(documented, keys);
});

const contract = <Id extends string>(
  over: Partial<Operation> & Pick<Operation, 'method' | 'path'> & { operationId: Id },
): Operation & { operationId: Id } => ({
  tag: 'Test',
  summary: 'test',
  security: 'none',
  ok: {},
  errors: {},
  ...over,
});

test('each contract is served by the handler of its operationId, with its own body limit', async () => {
  const group = defineRoutes<'echo' | 'upload', { prefix: string }>(
    [
      contract({ method: 'get', path: '/things/{thing_id}', operationId: 'echo' }),
      contract({ method: 'post', path: '/things', operationId: 'upload' }),
    ],
    ({ prefix }) => ({
      echo: async (req) => `${prefix}${params(req).thing_id}`,
      upload: { bodyLimit: 8, handler: async () => 'stored' },
    }),
  );
  const app = Fastify();
  mountRoutes(app, group, { prefix: 'thing ' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = app.server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const got = await fetch(`${base}/things/42`);
    assert.equal(got.status, 200);
    assert.equal(await got.text(), 'thing 42');
    const small = await fetch(`${base}/things`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '12345678',
    });
    assert.equal(small.status, 200);
    assert.equal(await small.text(), 'stored');
    const big = await fetch(`${base}/things`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '123456789',
    });
    assert.equal(big.status, 413);
  } finally {
    await app.close();
  }
});

test('a contract without a handler is refused when it is mounted', () => {
  const group = {
    routes: [contract({ method: 'get', path: '/a', operationId: 'x' })],
    handlers: () => ({}),
  };
  assert.throws(() => mountRoutes(Fastify(), group, {}), /no handler for x/);
});
