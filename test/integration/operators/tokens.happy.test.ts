/**
 * Operator accounts and personal API tokens (docs/api.md#operators): shown once, kept as a
 * hash, listed without the secret, revoked at once on every instance; the audit log names
 * who acted; ADMIN_TOKEN can be turned off, never leaving the gateway without an admin.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { assertError, assertTimestamp, sql } from '../../helpers/core.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createOperator } from '../../helpers/operators.js';

interface Entry {
  action: string;
  target_id: string;
  actor: string;
  actor_email: string | null;
  actor_token_name: string | null;
  outcome: string;
}

describe('operators and personal tokens', () => {
  let gw: TestGateway;
  let gw2: TestGateway;

  before(async () => {
    gw = await startTestGateway({}, { workers: false });
    gw2 = await startTestGateway({}, { workers: false }, gw);
  });
  after(async () => {
    await gw2?.stop();
    await gw?.stop();
  });

  test('create, list, read, change an operator; the fields and their formats', async () => {
    const res = await gw.admin('POST', '/admin/operators', {
      email: 'Rina@Example.com',
      name: ' Rina ',
      role: 'viewer',
    });
    assert.equal(res.status, 201, res.text);
    const op = res.json<Record<string, unknown>>();
    assert.match(op.id as string, /^op_[0-9a-f]{24}$/);
    assert.deepEqual(
      { ...op, id: 'x', created_at: 'x', updated_at: 'x' },
      {
        id: 'x',
        email: 'Rina@Example.com',
        name: 'Rina',
        role: 'viewer',
        disabled: false,
        created_at: 'x',
        updated_at: 'x',
      },
    );
    assertTimestamp(op.created_at);
    assertError(
      await gw.admin('POST', '/admin/operators', {
        email: 'rina@example.COM',
        name: 'R',
        role: 'admin',
      }),
      409,
      'an operator with this email already exists',
    );
    const patched = await gw.admin('PATCH', `/admin/operators/${op.id as string}`, {
      role: 'finance',
    });
    assert.equal(patched.json<{ role: string }>().role, 'finance');
    const list = await gw.admin('GET', '/admin/operators');
    assert.ok(list.json<{ operators: { id: string }[] }>().operators.some((o) => o.id === op.id));
    assertError(
      await gw.admin('GET', `/admin/operators/op_${'0'.repeat(24)}`),
      404,
      'operator not found',
    );
    assertError(await gw.admin('GET', '/admin/operators/nope'), 404, 'operator not found');
  });

  test('every 400 of the operator bodies', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/admin/operators', {}, 'missing required fields: email, name, role'],
      ['POST', '/admin/operators', [], 'body must be a JSON object'],
      [
        'POST',
        '/admin/operators',
        { email: 'nope', name: 'n', role: 'viewer' },
        'email must be an email address of at most 254 characters',
      ],
      [
        'POST',
        '/admin/operators',
        { email: 'a@b', name: 7, role: 'viewer' },
        'name must be a non-empty string of at most 200 characters',
      ],
      [
        'POST',
        '/admin/operators',
        { email: 'a@b', name: 'n', role: 'owner' },
        'role must be one of viewer, support, finance, admin',
      ],
    ];
    for (const [method, path, body, text] of cases) {
      assertError(await gw.admin(method, path, body), 400, text);
    }
    const op = await createOperator(gw, 'viewer');
    assertError(
      await gw.admin('PATCH', `/admin/operators/${op.id}`, { disabled: 'yes' }),
      400,
      'disabled must be a boolean',
    );
    const tokens = `/admin/operators/${op.id}/tokens`;
    assertError(
      await gw.admin('POST', tokens, {}),
      400,
      'missing required fields: name, expires_in_days',
    );
    assertError(
      await gw.admin('POST', tokens, { name: 'x', expires_in_days: 0 }),
      400,
      'expires_in_days must be an integer from 1 to 365',
    );
    assertError(
      await gw.admin('POST', tokens, { name: 'x', expires_in_days: 1.5 }),
      400,
      'expires_in_days must be an integer from 1 to 365',
    );
    assertError(
      await gw.admin('POST', tokens, { name: 'x'.repeat(101), expires_in_days: 3 }),
      400,
      'name must be a non-empty string of at most 100 characters',
    );
  });

  test('a token is shown once, stored as its SHA-256, listed without the secret', async () => {
    const op = await createOperator(gw, 'support');
    assert.match(op.token, /^pgo_[A-Za-z0-9_-]{43}$/);
    const rows = await sql<{ token_hash: Buffer }>(
      gw.databaseUrl,
      'SELECT token_hash FROM operator_tokens WHERE id = $1',
      [op.tokenId],
    );
    assert.deepEqual(rows[0]?.token_hash, createHash('sha256').update(op.token).digest());
    const dump = JSON.stringify(await sql(gw.databaseUrl, 'SELECT * FROM operator_tokens'));
    assert.ok(!dump.includes(op.token.slice(4)), 'no secret in the table');
    const list = await gw.admin('GET', `/admin/operators/${op.id}/tokens`);
    const [t] = list.json<{ tokens: Record<string, unknown>[] }>().tokens;
    assert.deepEqual(Object.keys(t ?? {}).sort(), [
      'created_at',
      'expires_at',
      'id',
      'last_used_at',
      'name',
      'operator_id',
      'revoked_at',
    ]);
    assert.ok(!list.text.includes(op.token));
    const me = await gw.admin('GET', '/admin/me', undefined, op.token);
    assert.deepEqual(me.json(), {
      actor: op.id,
      email: op.email,
      name: 'A support',
      role: 'support',
      token_name: 'support script',
      csrf_token: null,
    });
  });

  test('a revoked token is refused at once, on the other instance too', async () => {
    const op = await createOperator(gw, 'viewer');
    assert.equal((await gw2.admin('GET', '/admin/apps', undefined, op.token)).status, 200);
    const revoked = await gw.admin('POST', `/admin/operators/${op.id}/tokens/${op.tokenId}/revoke`);
    assert.equal(revoked.status, 200);
    assertTimestamp(revoked.json<{ revoked_at: string }>().revoked_at);
    assertError(await gw2.admin('GET', '/admin/apps', undefined, op.token), 401, 'unauthorized');
    assertError(await gw.admin('GET', '/admin/apps', undefined, op.token), 401, 'unauthorized');
    // A second revocation keeps the first time.
    const again = await gw.admin('POST', `/admin/operators/${op.id}/tokens/${op.tokenId}/revoke`);
    assert.equal(
      again.json<{ revoked_at: string }>().revoked_at,
      revoked.json<{ revoked_at: string }>().revoked_at,
    );
    assertError(
      await gw.admin('POST', `/admin/operators/${op.id}/tokens/tok_${'0'.repeat(24)}/revoke`),
      404,
      'token not found',
    );
  });

  test('a disabled operator is refused at once; an expired token is refused', async () => {
    const op = await createOperator(gw, 'viewer');
    await gw.admin('PATCH', `/admin/operators/${op.id}`, { disabled: true });
    assertError(await gw2.admin('GET', '/admin/apps', undefined, op.token), 401, 'unauthorized');
    // A third instance whose clock is a month ahead: the 30-day token has expired there.
    const other = await createOperator(gw, 'viewer');
    const later = await startTestGateway({}, { workers: false }, gw);
    try {
      later.running.gw.now = () => Date.now() + 31 * 86_400_000;
      assertError(
        await later.admin('GET', '/admin/apps', undefined, other.token),
        401,
        'unauthorized',
      );
    } finally {
      await later.stop();
    }
    assert.equal((await gw2.admin('GET', '/admin/apps', undefined, other.token)).status, 200);
  });

  test("an operator makes and revokes their own tokens, never another's", async () => {
    const a = await createOperator(gw, 'support');
    const b = await createOperator(gw, 'support');
    const mine = await gw.admin(
      'POST',
      `/admin/operators/${a.id}/tokens`,
      { name: 'mine', expires_in_days: 1 },
      a.token,
    );
    assert.equal(mine.status, 201, mine.text);
    assertError(
      await gw.admin(
        'POST',
        `/admin/operators/${b.id}/tokens`,
        { name: 'theirs', expires_in_days: 1 },
        a.token,
      ),
      403,
      'forbidden: role support cannot create tokens for others',
    );
    assertError(
      await gw.admin(
        'POST',
        `/admin/operators/${b.id}/tokens/${b.tokenId}/revoke`,
        undefined,
        a.token,
      ),
      403,
      'forbidden: role support cannot revoke tokens of others',
    );
    const id = mine.json<{ id: string }>().id;
    assert.equal(
      (await gw.admin('POST', `/admin/operators/${a.id}/tokens/${id}/revoke`, undefined, a.token))
        .status,
      200,
    );
  });

  test('the audit log names the actor: root, or the operator with the token name; filter by actor', async () => {
    const admin = await createOperator(gw, 'admin');
    const made = await gw.admin('POST', '/admin/apps', { name: 'By token' }, admin.token);
    const appId = made.json<{ app_id: string }>().app_id;
    await gw.admin('PATCH', `/admin/apps/${appId}`, { name: 'By root' });
    const entries = (await gw.admin('GET', `/admin/audit?target_id=${appId}`)).json<{
      entries: Entry[];
    }>().entries;
    assert.deepEqual(
      entries.map((e) => [e.action, e.actor, e.actor_email, e.actor_token_name]),
      [
        ['app.update', 'root', null, null],
        ['app.create', admin.id, admin.email, 'admin script'],
      ],
    );
    const mine = (await gw.admin('GET', `/admin/audit?actor=${admin.id}`)).json<{
      entries: Entry[];
    }>().entries;
    assert.deepEqual(
      mine.map((e) => [e.action, e.target_id]),
      [['app.create', appId]],
    );
    const root = (await gw.admin('GET', '/admin/audit?actor=root')).json<{ entries: Entry[] }>()
      .entries;
    assert.ok(root.some((e) => e.action === 'operator.create' && e.target_id === admin.id));
  });
});

describe('turning ADMIN_TOKEN off', () => {
  let gw: TestGateway;
  let gw2: TestGateway;

  before(async () => {
    gw = await startTestGateway({}, { workers: false });
    gw2 = await startTestGateway({}, { workers: false }, gw);
  });
  after(async () => {
    await gw2?.stop();
    await gw?.stop();
  });

  test('refused while no enabled admin exists; then off on every instance; the last admin stays', async () => {
    assert.deepEqual((await gw.admin('GET', '/admin/admin-token')).json(), { enabled: true });
    await createOperator(gw, 'finance');
    assertError(
      await gw.admin('PATCH', '/admin/admin-token', { enabled: false }),
      422,
      'ADMIN_TOKEN can be turned off only while an enabled admin operator exists',
    );
    assertError(
      await gw.admin('PATCH', '/admin/admin-token', { enabled: 'no' }),
      400,
      'enabled must be a boolean',
    );
    const admin = await createOperator(gw, 'admin');
    const off = await gw.admin('PATCH', '/admin/admin-token', { enabled: false }, admin.token);
    assert.deepEqual(off.json(), { enabled: false });
    assertError(await gw.admin('GET', '/admin/apps'), 401, 'unauthorized');
    assertError(await gw2.admin('GET', '/admin/apps'), 401, 'unauthorized');
    for (const change of [{ role: 'finance' }, { disabled: true }]) {
      assertError(
        await gw.admin('PATCH', `/admin/operators/${admin.id}`, change, admin.token),
        422,
        'the last enabled admin cannot be disabled or demoted while ADMIN_TOKEN is off',
      );
    }
    // A second admin: now the first may step down.
    const second = await createOperator(gw, 'admin', { by: admin.token });
    assert.equal(
      (await gw.admin('PATCH', `/admin/operators/${admin.id}`, { role: 'viewer' }, second.token))
        .status,
      200,
    );
    assert.deepEqual(
      (await gw2.admin('PATCH', '/admin/admin-token', { enabled: true }, second.token)).json(),
      { enabled: true },
    );
    assert.equal((await gw.admin('GET', '/admin/apps', undefined, ADMIN_TOKEN)).status, 200);
    const entries = (await gw.admin('GET', '/admin/audit?action=admin_token.update')).json<{
      entries: Entry[];
    }>().entries;
    assert.deepEqual(
      entries.map((e) => [e.outcome, e.actor]),
      [
        ['enabled', second.id],
        ['disabled', admin.id],
      ],
    );
  });

  test('two admins demoting each other at once: one of them stays admin', async () => {
    const off = await createOperator(gw, 'admin');
    await gw.admin('PATCH', '/admin/admin-token', { enabled: false }, off.token);
    // Only admins left: `off` and the earlier `second`; make sure there are exactly two.
    const ops = (await gw.admin('GET', '/admin/operators', undefined, off.token)).json<{
      operators: { id: string; role: string; disabled: boolean }[];
    }>().operators;
    const admins = ops.filter((o) => o.role === 'admin' && !o.disabled).map((o) => o.id);
    assert.equal(admins.length, 2);
    const results = await Promise.all(
      admins.map((id) =>
        gw.admin('PATCH', `/admin/operators/${id}`, { disabled: true }, off.token),
      ),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 422]);
    const adminsLeft = (
      await sql<{ n: number }>(
        gw.databaseUrl,
        `SELECT count(*) AS n FROM operators WHERE role = 'admin' AND NOT disabled`,
      )
    )[0]?.n;
    assert.equal(adminsLeft, 1);
    // Recovery as docs/operations.md says, by SQL on the database.
    await sql(
      gw.databaseUrl,
      `UPDATE gateway_settings SET value = 'true' WHERE key = 'admin_token_enabled'`,
    );
    assert.equal((await gw2.admin('GET', '/admin/apps')).status, 200);
  });
});

describe('bad personal tokens are throttled per source', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(
      { ADMIN_AUTH_FAILURES_BURST: '3', ADMIN_AUTH_FAILURES_PER_MINUTE: '6' },
      { workers: false },
    );
  });
  after(() => gw?.stop());

  test('401 up to the burst, then 429 with Retry-After, the right token included', async () => {
    const op = await createOperator(gw, 'viewer');
    for (let i = 0; i < 3; i++) {
      assertError(
        await gw.admin('GET', '/admin/apps', undefined, `pgo_wrong${i}`),
        401,
        'unauthorized',
      );
    }
    const limited = await gw.admin('GET', '/admin/apps', undefined, op.token);
    assertError(limited, 429, 'too many failed authentications');
    assert.equal(limited.headers.get('retry-after'), '10');
  });
});
