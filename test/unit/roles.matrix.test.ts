/**
 * The role matrix (src/auth/roles.ts): the roles nest, the 403 text, the key that Fastify's
 * and OpenAPI's paths share, deny-by-default for a route without a row, and the table in
 * docs/operations.md#operator-roles row for row.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  ROLE_MATRIX,
  ROLES,
  roleAllows,
  rolesFor,
  routeKey,
  ruleFor,
} from '../../src/auth/roles.js';
import { errorReply } from '../../src/domain/errors.js';

test('the roles nest: each has every right of the one before it', () => {
  assert.deepEqual(ROLES, ['viewer', 'support', 'finance', 'admin']);
  assert.ok(roleAllows('admin', 'viewer') && roleAllows('finance', 'support'));
  assert.ok(!roleAllows('support', 'finance') && !roleAllows('viewer', 'support'));
  assert.deepEqual(rolesFor('post', '/admin/payments/{payment_id}/refund'), ['finance', 'admin']);
});

test('one key for Fastify and OpenAPI paths; HEAD follows GET', () => {
  assert.equal(routeKey('GET', '/admin/apps/:id'), 'GET /admin/apps/{}');
  assert.equal(routeKey('get', '/admin/apps/{app_id}'), 'GET /admin/apps/{}');
  assert.equal(routeKey('HEAD', '/admin/operators/:id/tokens'), 'GET /admin/operators/{}/tokens');
});

test('every GET is a viewer row; a route without a row needs admin', () => {
  for (const [key, rule] of Object.entries(ROLE_MATRIX)) {
    if (key.startsWith('GET ')) assert.equal(rule.role, 'viewer', key);
  }
  assert.deepEqual(ruleFor('POST', '/admin/new/:id'), {
    role: 'admin',
    action: 'POST /admin/new/{}',
  });
});

test('the 403 text', () => {
  assert.deepEqual(errorReply('forbidden', 'support', 'refund payments'), {
    status: 403,
    body: 'forbidden: role support cannot refund payments',
  });
});

test('docs/operations.md shows the matrix, row for row', () => {
  const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const start = doc.indexOf('<!-- role table:');
  const end = doc.indexOf('<!-- end of role table -->');
  assert.ok(start > 0 && end > start, 'the role table markers');
  const rows = doc
    .slice(start, end)
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  const expected = Object.entries(ROLE_MATRIX).map(([key, r]) => [
    `\`${key}\``,
    ...ROLES.map((role) => (roleAllows(role, r.role) ? 'yes' : r.orSelf ? 'own' : '—')),
    r.action,
  ]);
  // On a mismatch the message is the table to paste between the markers.
  const table = expected.map((r) => `| ${r.join(' | ')} |`).join('\n');
  assert.deepEqual(rows, expected, `docs/operations.md's role table should read:\n${table}`);
});
