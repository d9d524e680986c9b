/**
 * The response checker of the integration tests (test/helpers/openapiCheck.ts): it accepts
 * what the document describes and refuses what it does not, both directly and through the
 * fetch() hook that the test gateways install.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  OpenApiChecker,
  stopWatching,
  violations,
  watchGateway,
  type ObservedAnswer,
} from '../helpers/openapiCheck.js';

const checker = new OpenApiChecker();
const JSON_CT = 'application/json; charset=utf-8';
const TEXT_CT = 'text/plain; charset=utf-8';
const PAYMENT = {
  payment_id: '0123456789abcdef0123456789abcdef',
  status: 'initiated',
  amount_minor: 15000,
  currency: 'IDR',
  method: 'qris',
  provider: 'idr_psp',
  provider_ref: 'ref-1',
  metadata: {},
  invoice_number: '',
  last_error: '',
  created_at: '2025-01-02T03:04:05.678Z',
  updated_at: '2025-01-02T03:04:05.678Z',
};
const get = (over: Partial<ObservedAnswer>): ObservedAnswer => ({
  method: 'GET',
  path: '/v1/payments/0123456789abcdef0123456789abcdef',
  status: 200,
  contentType: JSON_CT,
  body: JSON.stringify(PAYMENT),
  ...over,
});

test('documented answers pass', () => {
  assert.deepEqual(checker.check(get({})), []);
  assert.deepEqual(
    checker.check(get({ status: 404, contentType: TEXT_CT, body: 'payment not found' })),
    [],
  );
  assert.deepEqual(
    checker.check({
      method: 'POST',
      path: '/v1/payments',
      status: 400,
      contentType: TEXT_CT,
      body: 'missing required fields: external_user_id, currency',
    }),
    [],
  );
  assert.deepEqual(
    checker.check({
      method: 'POST',
      path: '/v1/refunds',
      status: 502,
      contentType: TEXT_CT,
      body: 'refund failed: outside the refund window',
    }),
    [],
  );
  assert.deepEqual(
    checker.check({
      method: 'DELETE',
      path: '/v1/nothing',
      status: 404,
      contentType: TEXT_CT,
      body: 'not found',
    }),
    [],
  );
  assert.equal(
    checker.template('/admin/payments/abc/cancel'),
    '/admin/payments/{payment_id}/cancel',
  );
  assert.equal(checker.template('/admin/payments?limit=5'), '/admin/payments');
});

test('an undocumented status is refused', () => {
  const problems = checker.check(get({ status: 418, contentType: TEXT_CT, body: 'teapot' }));
  assert.equal(problems.length, 1);
  assert.match(
    problems[0] as string,
    /status 418 is not documented for GET \/v1\/payments\/\{payment_id\}/,
  );
});

test('an error body that is not one of the listed texts is refused', () => {
  const problems = checker.check(
    get({ status: 404, contentType: TEXT_CT, body: 'payment not found.' }),
  );
  assert.equal(problems.length, 1);
  assert.match(problems[0] as string, /does not match the document/);
  // A templated body must match its pattern, not merely start like it.
  assert.equal(
    checker.check({
      method: 'POST',
      path: '/v1/payments',
      status: 400,
      contentType: TEXT_CT,
      body: 'missing required fields: email',
    }).length,
    1,
  );
});

test('a JSON body with an undocumented field, a missing field or a wrong type is refused', () => {
  assert.equal(checker.check(get({ body: JSON.stringify({ ...PAYMENT, extra: 1 }) })).length, 1);
  const missing: Record<string, unknown> = { ...PAYMENT };
  delete missing.last_error;
  assert.equal(checker.check(get({ body: JSON.stringify(missing) })).length, 1);
  assert.equal(
    checker.check(get({ body: JSON.stringify({ ...PAYMENT, amount_minor: '15000' }) })).length,
    1,
  );
  assert.equal(checker.check(get({ body: '{"payment_id":' })).length, 1);
});

test('an undocumented content type is refused, and so is JSON for an error', () => {
  assert.equal(checker.check(get({ contentType: 'text/html; charset=utf-8' })).length, 1);
  assert.equal(
    checker.check(get({ status: 404, contentType: JSON_CT, body: '"payment not found"' })).length,
    1,
  );
  assert.equal(checker.check(get({ contentType: 'application/json' })).length, 1, 'no charset');
});

test('answers before routing: a payment path that does not decode is payment not found', () => {
  const answer = (path: string): ObservedAnswer => ({
    method: 'GET',
    path,
    status: 404,
    contentType: TEXT_CT,
    body: 'payment not found',
  });
  assert.deepEqual(checker.check(answer('/admin/payments/%zz/cancel')), []);
  assert.equal(checker.check(answer('/admin/apps/%zz/cancel')).length, 1);
});

test('an undocumented route or method is refused unless it is the plain 404', () => {
  assert.equal(
    checker.check({
      method: 'GET',
      path: '/v2/payments',
      status: 200,
      contentType: JSON_CT,
      body: '{}',
    }).length,
    1,
  );
  assert.equal(
    checker.check({
      method: 'DELETE',
      path: '/v1/payments/x',
      status: 404,
      contentType: JSON_CT,
      body: '{}',
    }).length,
    1,
  );
});

// The fetch() hook, against a server that answers what the test tells it to.
let server: Server;
let url: string;
let next: { status: number; type: string; body: string };
before(async () => {
  server = createServer((_req, res) => {
    res.writeHead(next.status, { 'content-type': next.type });
    res.end(next.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('a watched gateway: an undocumented answer rejects the fetch and fails stopWatching', async () => {
  watchGateway(url);
  next = { status: 200, type: 'application/json; charset=utf-8', body: '{"status":"ok"}' };
  const ok = await fetch(`${url}/healthz`);
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { status: 'ok' }, 'the body stays readable');

  next = { status: 200, type: 'application/json; charset=utf-8', body: '{"status":"fine"}' };
  await assert.rejects(fetch(`${url}/healthz`), /not described by the OpenAPI document/);
  next = { status: 201, type: 'text/plain; charset=utf-8', body: 'created' };
  await assert.rejects(fetch(`${url}/undocumented`, { method: 'POST' }), /no documented operation/);
  // The simulators are the providers' stand-ins, not the gateway's API.
  assert.equal((await fetch(`${url}/sim/idr_psp/anything`)).status, 201);
  assert.equal(violations(url).length, 2);
  assert.throws(() => stopWatching(url), /2 answer\(s\) not described/);

  // No longer watched: nothing is checked.
  next = { status: 299, type: 'text/plain', body: 'x' };
  assert.equal((await fetch(`${url}/healthz`)).status, 299);
});
