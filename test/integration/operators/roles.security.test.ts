/**
 * The role matrix (src/auth/roles.ts) against the routes Fastify actually registered: every
 * admin route (and /metrics) needs a row, and every route × every role gets either an answer
 * that is not a refusal (the role may use it) or exactly 403 `forbidden: role <role> cannot
 * <action>`. A route added later without a row fails here, named.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROLE_MATRIX, ROLES, roleAllows, routeKey, type Role } from '../../../src/auth/roles.js';
import { registeredRoutes, type RegisteredRoute } from '../../../src/http/server.js';
import { assertError } from '../../helpers/core.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createOperator, type TestOperator } from '../../helpers/operators.js';

/** The admin API: everything under /admin, and /metrics (admin credentials too). */
function adminRoutes(routes: readonly RegisteredRoute[]): RegisteredRoute[] {
  return routes.filter(
    (r) => r.method !== 'HEAD' && (r.url.startsWith('/admin/') || r.url === '/metrics'),
  );
}

function withoutRow(routes: readonly RegisteredRoute[]): string[] {
  return routes.map((r) => routeKey(r.method, r.url)).filter((k) => ROLE_MATRIX[k] === undefined);
}

/** A plausible id for each path parameter; none exists, so no allowed call changes anything. */
function concretePath(url: string): string {
  return url.replace(/:([a-z_]+)/g, (_m, name: string, offset: number) => {
    if (name === 'token_id') return `tok_${'0'.repeat(24)}`;
    if (url.slice(0, offset).endsWith('/operators/')) return `op_${'0'.repeat(24)}`;
    if (url.slice(0, offset).endsWith('/apps/')) return `app_${'0'.repeat(24)}`;
    return '0'.repeat(32);
  });
}

async function call(gw: TestGateway, route: RegisteredRoute, token: string) {
  const read = route.method === 'GET';
  const res = await fetch(gw.url + concretePath(route.url), {
    method: route.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(read ? {} : { 'content-type': 'application/json' }),
    },
    body: read ? undefined : '{}',
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
}

describe('every admin route × every role', () => {
  let gw: TestGateway;
  const operators = {} as Record<Role, TestOperator>;

  before(async () => {
    gw = await startTestGateway({}, { workers: false });
    for (const role of ROLES) operators[role] = await createOperator(gw, role);
  });
  after(() => gw?.stop());

  test('every registered admin route has a row in the role matrix', () => {
    const routes = adminRoutes(registeredRoutes(gw.running.http));
    assert.ok(routes.length >= 30, `found only ${routes.length} admin routes`);
    assert.deepEqual(
      withoutRow(routes),
      [],
      'admin routes without a row in ROLE_MATRIX (src/auth/roles.ts): add one for each',
    );
  });

  test('the check names a route that has no row', () => {
    const routes = [...adminRoutes(registeredRoutes(gw.running.http))];
    routes.push({ method: 'POST', url: '/admin/apps/:id/endpoints/:endpoint_id/archive' });
    assert.deepEqual(withoutRow(routes), ['POST /admin/apps/{}/endpoints/{}/archive']);
  });

  test('every row of the matrix is a registered route', () => {
    const keys = new Set(
      adminRoutes(registeredRoutes(gw.running.http)).map((r) => routeKey(r.method, r.url)),
    );
    assert.deepEqual(
      Object.keys(ROLE_MATRIX).filter((k) => !keys.has(k)),
      [],
      'rows of ROLE_MATRIX without a route',
    );
  });

  test('each role: not refused where the matrix allows it, else the exact 403', async () => {
    let refusals = 0;
    for (const route of adminRoutes(registeredRoutes(gw.running.http))) {
      const rule = ROLE_MATRIX[routeKey(route.method, route.url)];
      assert.ok(rule, `${route.method} ${route.url} has no row in ROLE_MATRIX (src/auth/roles.ts)`);
      for (const role of ROLES) {
        const res = await call(gw, route, operators[role].token);
        const where = `${role} on ${route.method} ${route.url}: ${res.status} ${res.text}`;
        if (roleAllows(role, rule.role)) {
          assert.ok(res.status !== 403 && res.status !== 401, `allowed, but ${where}`);
        } else {
          refusals++;
          assertError(res, 403, `forbidden: role ${role} cannot ${rule.action}`);
        }
      }
      const root = await call(gw, route, ADMIN_TOKEN);
      assert.ok(
        root.status !== 403 && root.status !== 401,
        `ADMIN_TOKEN on ${route.method} ${route.url}: ${root.status} ${root.text}`,
      );
    }
    // viewer is refused every change, support most, finance the admin ones.
    assert.ok(refusals >= 20, `only ${refusals} refusals`);
  });

  test('the roles nest: viewer reads, support retries, finance refunds, admin manages', async () => {
    const body = { reason: 'x' };
    const refund = (role: Role) =>
      gw.admin('POST', `/admin/payments/${'0'.repeat(32)}/refund`, body, operators[role].token);
    assertError(await refund('viewer'), 403, 'forbidden: role viewer cannot refund payments');
    assertError(await refund('support'), 403, 'forbidden: role support cannot refund payments');
    assertError(await refund('finance'), 404, 'payment not found');
    const create = (role: Role) =>
      gw.admin('POST', '/admin/apps', { name: 'Shop' }, operators[role].token);
    assertError(await create('finance'), 403, 'forbidden: role finance cannot create apps');
    assert.equal((await create('admin')).status, 201);
    const retry = (role: Role) =>
      gw.admin(
        'POST',
        `/admin/payments/${'0'.repeat(32)}/retry-webhook`,
        undefined,
        operators[role].token,
      );
    assertError(await retry('viewer'), 403, 'forbidden: role viewer cannot retry webhooks');
    assertError(await retry('support'), 404, 'payment not found');
  });
});
