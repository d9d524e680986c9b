import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { CreatedEndpoint } from '../../helpers/contract.js';
import { assertStatus, sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

// Webhook endpoints with two gateway instances on one database (docs/operations.md#several-instances):
// the per-endpoint in-flight cap holds across instances, and concurrent recovers of one
// endpoint enqueue each missed event once.

let a: TestGateway;
let b: TestGateway;
let server: http.Server;
let inFlight = 0;
let maxInFlight = 0;
let answer = 500;
const seen: string[] = [];

before(async () => {
  const env = {
    DELIVERY_ENDPOINT_CONCURRENCY: '3',
    DELIVERY_MAX_ATTEMPTS: '1',
    DELIVERY_TIMEOUT_MS: '5000',
  };
  a = await startTestGateway(env);
  b = await startTestGateway(env, {}, a);
  // A slow receiver that notes how many requests it holds at once.
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(String(req.headers['x-pay-event-id']));
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(answer).end();
      }, 300);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
after(async () => {
  server?.closeAllConnections();
  server?.close();
  await b?.stop();
  await a?.stop();
});

test('two instances never hold more than DELIVERY_ENDPOINT_CONCURRENCY requests of one endpoint at once; concurrent recovers enqueue once', async () => {
  const app = await a.createApp();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const res = await a.admin('POST', `/admin/apps/${app.app_id}/endpoints`, {
    url,
    event_types: ['payment.succeeded'],
  });
  assertStatus(res, 201);
  const ep = res.json<CreatedEndpoint>();
  const since = new Date(Date.now() - 1000).toISOString();
  await Promise.all(Array.from({ length: 15 }, () => paidPayment(a, app, 'idr', 1000)));
  const dead = async () =>
    (
      await sql<{ n: number }>(
        a.databaseUrl,
        `SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = $1 AND status = 'dead'`,
        [ep.endpoint_id],
      )
    )[0]?.n;
  await eventually(async () => (await dead()) === 15, 'every first delivery answered', 30_000);
  assert.equal(seen.length, 15);
  assert.ok(maxInFlight <= 3, `the receiver held ${maxInFlight} requests at once`);
  assert.ok(maxInFlight >= 2, 'both instances delivered in parallel up to the cap');

  // Both instances recover at once: each missed event is enqueued once in all.
  answer = 200;
  const path = `/admin/apps/${app.app_id}/endpoints/${ep.endpoint_id}/recover`;
  const [r1, r2] = await Promise.all([
    a.admin('POST', path, { since }),
    b.admin('POST', path, { since }),
  ]);
  assertStatus(r1, 202);
  assertStatus(r2, 202);
  const total =
    r1.json<{ deliveries: number }>().deliveries + r2.json<{ deliveries: number }>().deliveries;
  assert.equal(total, 15);
  await eventually(async () => seen.length === 30, 'the recovered deliveries', 30_000);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(seen.length, 30);
  assert.equal(new Set(seen.slice(15)).size, 15, 'each event recovered once');
});
