/**
 * The generic path of sendJson (src/http/reply.ts, docs/adr/0003 addendum): a route that
 * declares a response schema for a status has its JSON answer written by that schema's
 * lenient compiled writer. Its text must be byte for byte what exactJson (JSON.stringify,
 * bigints exact) wrote before: checked here over every declared answer's example, over
 * edge values, and under the test runner on every real answer (sendJson compares the two).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { exactJson } from '../../src/domain/exactJson.js';
import { lenientWriterFor } from '../../src/domain/serialize.js';
import { API } from '../../src/http/api.js';
import { sendJson } from '../../src/http/reply.js';
import { defineRoutes, mountRoutes, operationsOf } from '../../src/http/routes/route.js';

test("every declared JSON answer's example is written as exactJson writes it", () => {
  let n = 0;
  for (const op of operationsOf(API)) {
    for (const [status, answer] of Object.entries(op.ok)) {
      if (!('schema' in answer) || answer.example === undefined) continue;
      const at = `${op.method} ${op.path} ${status} (${answer.schema})`;
      assert.equal(lenientWriterFor(answer.schema)(answer.example), exactJson(answer.example), at);
      n++;
    }
  }
  assert.ok(n > 40, `found ${n} examples`);
});

test('a missing property is left out, never thrown; free-form parts and big sums are exact', () => {
  const w = lenientWriterFor('Payment');
  const row = {
    payment_id: 'pay_1',
    status: 'paid',
    amount_minor: 12000000000000000007n,
    currency: 'IDR',
    metadata: { a: [1, { b: 'x"\\\u0001\ud800' }], n: null, big: 2n ** 70n },
  };
  assert.equal(w(row), exactJson(row));
  assert.equal(w({}), '{}');
});

test('sendJson writes by the declared schema, and under the test runner refuses a different text', async () => {
  const app = Fastify();
  const ok = { 200: { schema: 'Health' as const, description: 'ok' } };
  const group = defineRoutes(
    [
      {
        method: 'get',
        path: '/same',
        operationId: 'same',
        tag: 't',
        summary: 's',
        security: 'none',
        ok,
        errors: [],
      },
      {
        method: 'get',
        path: '/extra',
        operationId: 'extra',
        tag: 't',
        summary: 's',
        security: 'none',
        ok,
        errors: [],
      },
    ] as never,
    () => ({
      same: (_req, reply) => sendJson(reply, 200, { status: 'ok' }),
      extra: (_req, reply) => sendJson(reply, 200, { status: 'ok', undeclared: 1 }),
    }),
  );
  mountRoutes(app, group, undefined as never);
  const same = await app.inject({ method: 'GET', url: '/same' });
  assert.equal(same.statusCode, 200);
  assert.equal(same.body, '{"status":"ok"}');
  // A property the schema does not declare would be dropped: the check makes it fail loudly.
  // (scripts/test.ts sets PAYGATE_TEST_RUN; without it the undeclared property is dropped.)
  const extra = await app.inject({ method: 'GET', url: '/extra' });
  if (process.env.PAYGATE_TEST_RUN !== undefined) assert.equal(extra.statusCode, 500);
  else assert.equal(extra.body, '{"status":"ok"}');
  await app.close();
});
