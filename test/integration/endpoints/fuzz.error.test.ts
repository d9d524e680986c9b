import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets, CreatedEndpoint } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { rng } from '../../helpers/util.js';

// Hostile ids and bodies on every webhook endpoint route (docs/api.md#webhook-endpoints):
// never a 5xx, every error plain text, nothing created by a refused request. Every answer is
// also checked against the OpenAPI document by the test gateway's watcher, so an error text
// the document does not list fails here. Seeded, so a failure repeats.

const TEXT = 'text/plain; charset=utf-8';

const SEGMENTS = [
  '%zz',
  '%00',
  '..',
  'a'.repeat(150),
  'ep_' + '0'.repeat(24),
  '%F0%9F%92%A9',
  '-1',
];
const VALUES: unknown[] = [
  -1,
  0,
  169,
  1.5,
  9007199254740991,
  '',
  '\u0000',
  '\ud800',
  'a'.repeat(5000),
  'http://',
  'https://example.com/' + 'a'.repeat(2100),
  'javascript:alert(1)',
  null,
  true,
  [],
  ['*', '*'],
  ['refund.succeeded', 7],
  [''],
  {},
  { a: 1 },
  '2025-02-30',
  '1969-12-31',
];
const FIELDS = ['url', 'event_types', 'description', 'disabled', 'grace_hours', 'since'];

let gw: TestGateway;
let app: AppWithSecrets;
let ep: CreatedEndpoint;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  const res = await gw.admin('POST', `/admin/apps/${app.app_id}/endpoints`, {
    url: 'http://127.0.0.1:9/hook',
    event_types: ['*'],
  });
  ep = res.json<CreatedEndpoint>();
});
after(() => gw?.stop());

test('no 5xx, every error plain text, refused creates store nothing', async () => {
  const pick = rng(20261125);
  const one = <T>(list: readonly T[]) => list[Math.floor(pick() * list.length)] as T;
  const routes: [string, string][] = [
    ['POST', '/admin/apps/{app}/endpoints'],
    ['GET', '/admin/apps/{app}/endpoints'],
    ['PATCH', '/admin/apps/{app}/endpoints/{ep}'],
    ['DELETE', '/admin/apps/{app}/endpoints/{ep}'],
    ['POST', '/admin/apps/{app}/endpoints/{ep}/rotate-secret'],
    ['POST', '/admin/apps/{app}/endpoints/{ep}/recover'],
    ['GET', '/admin/apps/{app}/endpoints/{ep}/stats?days={days}'],
    ['POST', '/admin/apps/{app}/regenerate-keys'],
  ];
  let created = 0;
  for (let i = 0; i < 320; i++) {
    const [method, template] = routes[i % routes.length] as [string, string];
    const path = template
      .replace('{app}', pick() < 0.7 ? app.app_id : one(SEGMENTS))
      .replace('{ep}', pick() < 0.7 ? ep.endpoint_id : one(SEGMENTS))
      .replace('{days}', String(one(VALUES)));
    const body: Record<string, unknown> = {};
    for (const f of FIELDS) if (pick() < 0.5) body[f] = one(VALUES);
    const raw = pick() < 0.1 ? '{"url": ' : pick() < 0.1 ? '[1]' : JSON.stringify(body);
    const res = await gw.admin(
      method,
      path,
      method === 'GET' || method === 'DELETE' ? undefined : raw,
    );
    const what = `${method} ${path} ${raw.slice(0, 100)}`;
    assert.ok(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
    if (res.status >= 400) assert.equal(res.headers.get('content-type'), TEXT, what);
    if (method === 'POST' && template.endsWith('/endpoints') && res.status === 201) created++;
    // Keep the endpoint enabled so later recovers are judged on their bodies.
    if (method === 'DELETE' && res.status === 200) {
      await gw.admin('PATCH', `/admin/apps/${app.app_id}/endpoints/${ep.endpoint_id}`, {
        disabled: false,
      });
    }
  }
  const listed = (await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints`)).json<{
    endpoints: unknown[];
  }>().endpoints;
  assert.equal(listed.length, 1 + created);
});
