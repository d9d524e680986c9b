import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppView, AppWithSecrets } from '../../helpers/contract.js';
import {
  assertError,
  assertStatus,
  assertTimestamp,
  HEX32,
  paymentBody,
  sql,
} from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const ALL_METHODS = {
  idr_psp: ['qris', 'va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata'],
  card_psp: ['card_psp'],
  wallet_psp: ['wallet_psp'],
};
const VIEW_KEYS = [
  'app_id',
  'name',
  'mode',
  'api_key',
  'webhook_url',
  'allowed_providers',
  'allowed_methods',
  'created_at',
];
const CREATE_KEYS = [
  'app_id',
  'name',
  'mode',
  'api_key',
  'signing_secret',
  'webhook_secret',
  'webhook_url',
  'allowed_providers',
  'allowed_methods',
  'created_at',
];
const ZERO_ID = '0'.repeat(32);

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw?.stop();
});

async function create(body: unknown) {
  return gw.admin('POST', '/admin/apps', body);
}

describe('POST /admin/apps', () => {
  test('defaults: mode test, all three providers, every method (docs/api.md#apps)', async () => {
    const res = await create({ name: 'Corner shop' });
    assertStatus(res, 201);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const app = res.json<AppWithSecrets>();
    assert.deepEqual(Object.keys(app), CREATE_KEYS);
    assert.match(app.app_id, /^app_[0-9a-f]{24}$/);
    assert.equal(app.name, 'Corner shop');
    assert.equal(app.mode, 'test');
    assert.match(app.api_key, /^pk_[0-9a-f]+$/);
    assert.match(app.signing_secret, /^sk_[0-9a-f]{64}$/);
    assert.match(app.webhook_secret, /^whsec_[0-9a-f]{64}$/);
    assert.equal(app.webhook_url, null);
    assert.deepEqual(app.allowed_providers, ['idr_psp', 'card_psp', 'wallet_psp']);
    assert.deepEqual(app.allowed_methods, ALL_METHODS);
    assertTimestamp(app.created_at);
  });

  test('every field given', async () => {
    const res = await create({
      name: 'Card only',
      mode: 'sandbox',
      webhook_url: 'https://hooks.example.com/paygate',
      allowed_providers: ['card_psp', 'card_psp'],
      allowed_methods: { idr_psp: ['qris', 'va_bca'] },
    });
    assertStatus(res, 201);
    const app = res.json<AppWithSecrets>();
    assert.equal(app.mode, 'sandbox');
    assert.equal(app.webhook_url, 'https://hooks.example.com/paygate');
    assert.deepEqual(app.allowed_providers, ['card_psp']);
    // Providers missing from allowed_methods keep every method they support.
    assert.deepEqual(app.allowed_methods, { ...ALL_METHODS, idr_psp: ['qris', 'va_bca'] });
  });

  test('each app gets its own keys', async () => {
    const a = await gw.createApp();
    const b = await gw.createApp();
    assert.notEqual(a.app_id, b.app_id);
    assert.notEqual(a.api_key, b.api_key);
    assert.notEqual(a.signing_secret, b.signing_secret);
    assert.notEqual(a.webhook_secret, b.webhook_secret);
    assert.notEqual(a.signing_secret, a.webhook_secret);
  });

  test('a test-mode app may deliver to localhost', async () => {
    const res = await create({ name: 'Local', webhook_url: 'http://127.0.0.1:9999/hook' });
    assertStatus(res, 201);
    assert.equal(res.json<AppView>().webhook_url, 'http://127.0.0.1:9999/hook');
  });

  const invalid: [string, unknown, string][] = [
    ['body not JSON', '{"name":', 'invalid JSON body'],
    ['body an array', [], 'body must be a JSON object'],
    ['body a string', '"shop"', 'body must be a JSON object'],
    ['no name', {}, 'name must be a non-empty string'],
    ['empty name', { name: '' }, 'name must be a non-empty string'],
    ['blank name', { name: '   ' }, 'name must be a non-empty string'],
    ['name not a string', { name: 5 }, 'name must be a non-empty string'],
    ['name too long', { name: 'x'.repeat(201) }, 'name must be at most 200 characters'],
    ['unknown mode', { name: 'a', mode: 'prod' }, 'mode must be one of test, sandbox, live'],
    ['mode uppercase', { name: 'a', mode: 'LIVE' }, 'mode must be one of test, sandbox, live'],
    [
      'relative webhook_url',
      { name: 'a', webhook_url: '/hook' },
      'webhook_url must be an absolute http(s) URL',
    ],
    [
      'ftp webhook_url',
      { name: 'a', webhook_url: 'ftp://example.com/hook' },
      'webhook_url must be an absolute http(s) URL',
    ],
    [
      'webhook_url not a string',
      { name: 'a', webhook_url: 42 },
      'webhook_url must be an absolute http(s) URL',
    ],
    [
      'webhook_url too long',
      { name: 'a', webhook_url: 'https://example.com/' + 'x'.repeat(2048) },
      'webhook_url must be an absolute http(s) URL',
    ],
    [
      'allowed_providers not an array',
      { name: 'a', allowed_providers: 'idr_psp' },
      'allowed_providers must be an array of provider slugs',
    ],
    [
      'allowed_providers with a non-string',
      { name: 'a', allowed_providers: [1] },
      'allowed_providers must be an array of provider slugs',
    ],
    [
      'allowed_providers null',
      { name: 'a', allowed_providers: null },
      'allowed_providers must be an array of provider slugs',
    ],
    [
      'unknown provider',
      { name: 'a', allowed_providers: ['idr_psp', 'paypal'] },
      'unknown provider paypal',
    ],
    [
      'allowed_methods an array',
      { name: 'a', allowed_methods: [] },
      'allowed_methods must be an object of provider slug to method list',
    ],
    [
      'allowed_methods null',
      { name: 'a', allowed_methods: null },
      'allowed_methods must be an object of provider slug to method list',
    ],
    [
      'allowed_methods of an unknown provider',
      { name: 'a', allowed_methods: { stripe: ['card'] } },
      'unknown provider stripe',
    ],
    [
      'allowed_methods list not an array',
      { name: 'a', allowed_methods: { idr_psp: 'qris' } },
      'allowed_methods.idr_psp must be an array of method slugs',
    ],
    [
      'a method the provider does not support',
      { name: 'a', allowed_methods: { idr_psp: ['qris', 'card_psp'] } },
      'method card_psp is not supported by provider idr_psp',
    ],
  ];
  for (const [what, body, reason] of invalid) {
    test(`400 ${reason} (${what})`, async () => {
      assertError(await create(body), 400, reason);
    });
  }

  test('invalid input creates nothing', async () => {
    const before = (await gw.admin('GET', '/admin/apps')).json<{ apps: AppView[] }>().apps.length;
    for (const [, body] of invalid) await create(body);
    const after = (await gw.admin('GET', '/admin/apps')).json<{ apps: AppView[] }>().apps.length;
    assert.equal(after, before);
  });
});

describe('live apps and private webhook targets (docs/api.md#apps)', () => {
  const PRIVATE = [
    'http://127.0.0.1/hook',
    'http://localhost:8080/hook',
    'https://api.localhost/hook',
    'http://10.1.2.3/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.10/hook',
    'http://169.254.169.254/latest',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://2130706433/hook',
    'http://printer.local/hook',
    'http://localhost./hook',
    'http://api.localhost./hook',
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:0:7f00:1]/hook',
    'http://[64:ff9b::7f00:1]/hook',
    'http://[64:ff9b:1::a00:1]/hook',
    'http://[2002:7f00:1::]/hook',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    'http://[::ffff:10.0.0.1]/hook',
    'http://203.0.113.7/hook',
    'http://[2001:db8::1]/hook',
  ];
  // Literals only: a name would be resolved, and tests never ask a real resolver.
  const PUBLIC = [
    'http://93.184.216.34/hook',
    'https://8.8.8.8:8443/hook',
    'http://[2606:2800:220:1:248:1893:25c8:1946]/hook',
    'http://[::ffff:93.184.216.34]/hook',
    'http://[64:ff9b::808:808]/hook',
    'http://[2002:5db8:d822::1]/hook',
  ];

  test('a live app with a private webhook_url is refused at create', async () => {
    for (const url of PRIVATE) {
      assertError(
        await create({ name: 'Live', mode: 'live', webhook_url: url }),
        400,
        'webhook_url must be a public address',
      );
    }
  });

  test('a live app with a public address literal as webhook_url is accepted', async () => {
    for (const url of PUBLIC) {
      const res = await create({ name: 'Live', mode: 'live', webhook_url: url });
      assertStatus(res, 201);
      assert.equal(res.json<AppView>().webhook_url, url);
    }
  });

  test('a live app whose webhook_url names a host is judged by every address it resolves to', async () => {
    gw.network.set('shop.example.com', '93.184.216.34');
    gw.network.set('dual.example.com', '93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946');
    gw.network.set('intranet.example.com', '93.184.216.34', '10.0.0.8');
    gw.network.set('v6-internal.example.com', '2606:4700:4700::1111', 'fd00::5');
    gw.network.set('mapped.example.com', '::ffff:192.168.1.1');
    gw.network.set('rebound.example.com', '127.0.0.1');
    for (const url of [
      'http://shop.example.com/hook',
      'https://dual.example.com:8443/hook',
      'https://shop.example.com./hook',
    ]) {
      const res = await create({ name: 'Live', mode: 'live', webhook_url: url });
      assertStatus(res, 201);
      assert.equal(res.json<AppView>().webhook_url, url);
    }
    for (const url of [
      'http://intranet.example.com/hook',
      'https://v6-internal.example.com/hook',
      'http://mapped.example.com/hook',
      'http://rebound.example.com./hook',
    ]) {
      assertError(
        await create({ name: 'Live', mode: 'live', webhook_url: url }),
        400,
        'webhook_url must be a public address',
      );
    }
  });

  test('a live app may name a host that does not resolve yet', async () => {
    const res = await create({
      name: 'Live',
      mode: 'live',
      webhook_url: 'https://not-yet.example.com/hook',
    });
    assertStatus(res, 201);
    assert.equal(res.json<AppView>().webhook_url, 'https://not-yet.example.com/hook');
  });

  test('a live app cannot be patched to a name that resolves to a private address', async () => {
    gw.network.set('vpn.example.com', '100.64.3.4');
    const app = await gw.createApp({ mode: 'live', webhook_url: 'https://8.8.4.4/a' });
    assertError(
      await gw.admin('PATCH', `/admin/apps/${app.app_id}`, {
        webhook_url: 'https://vpn.example.com/hook',
      }),
      400,
      'webhook_url must be a public address',
    );
    const [row] = await sql<{ webhook_url: string }>(
      gw.databaseUrl,
      'SELECT webhook_url FROM apps WHERE id = $1',
      [app.app_id],
    );
    assert.equal(row?.webhook_url, 'https://8.8.4.4/a');
  });

  test('a live app can be patched to a public address literal', async () => {
    const app = await gw.createApp({ mode: 'live', webhook_url: 'https://8.8.4.4/a' });
    const res = await gw.admin('PATCH', `/admin/apps/${app.app_id}`, {
      webhook_url: 'http://[2606:4700:4700::1111]/hook',
    });
    assertStatus(res, 200);
    assert.equal(res.json<AppView>().webhook_url, 'http://[2606:4700:4700::1111]/hook');
  });

  test('a live app with a public webhook_url is accepted', async () => {
    const res = await create({
      name: 'Live',
      mode: 'live',
      webhook_url: 'https://hooks.example.com/paygate',
    });
    assertStatus(res, 201);
    assert.equal(res.json<AppView>().mode, 'live');
  });

  test('a live app cannot be patched to a private webhook_url', async () => {
    const app = await gw.createApp({ mode: 'live', webhook_url: 'https://hooks.example.com/a' });
    assertError(
      await gw.admin('PATCH', `/admin/apps/${app.app_id}`, {
        webhook_url: 'http://192.168.0.10/hook',
      }),
      400,
      'webhook_url must be a public address',
    );
    const [row] = await sql<{ webhook_url: string }>(
      gw.databaseUrl,
      'SELECT webhook_url FROM apps WHERE id = $1',
      [app.app_id],
    );
    assert.equal(row?.webhook_url, 'https://hooks.example.com/a');
  });

  test('sandbox apps may use private targets', async () => {
    assertStatus(
      await create({ name: 'Sandbox', mode: 'sandbox', webhook_url: 'http://10.0.0.1/h' }),
      201,
    );
  });

  test('ALLOW_PRIVATE_WEBHOOK_TARGETS=true lets a live app use a private target', async () => {
    const permissive = await startTestGateway({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    try {
      const res = await permissive.admin('POST', '/admin/apps', {
        name: 'Live on-prem',
        mode: 'live',
        webhook_url: 'http://10.0.0.5/hook',
      });
      assertStatus(res, 201);
      assert.equal(res.json<AppView>().webhook_url, 'http://10.0.0.5/hook');
      const app = res.json<AppView>();
      const patched = await permissive.admin('PATCH', `/admin/apps/${app.app_id}`, {
        webhook_url: 'http://127.0.0.1:7000/hook',
      });
      assertStatus(patched, 200);
      assert.equal(patched.json<AppView>().webhook_url, 'http://127.0.0.1:7000/hook');
    } finally {
      await permissive.stop();
    }
  });
});

describe('GET /admin/apps', () => {
  test('lists apps without their secrets', async () => {
    const app = await gw.createApp({ name: 'Listed', webhook_url: 'https://x.example.com/h' });
    const res = await gw.admin('GET', '/admin/apps');
    assertStatus(res, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const { apps } = res.json<{ apps: AppView[] }>();
    assert.ok(apps.length >= 1);
    for (const a of apps) assert.deepEqual(Object.keys(a), VIEW_KEYS);
    const listed = apps.find((a) => a.app_id === app.app_id);
    assert.deepEqual(listed, {
      app_id: app.app_id,
      name: 'Listed',
      mode: 'test',
      api_key: app.api_key,
      webhook_url: 'https://x.example.com/h',
      allowed_providers: app.allowed_providers,
      allowed_methods: app.allowed_methods,
      created_at: app.created_at,
    });
    assert.ok(!res.text.includes(app.signing_secret));
    assert.ok(!res.text.includes(app.webhook_secret));
    assert.ok(!res.text.includes('signing_secret'));
    assert.ok(!res.text.includes('webhook_secret'));
  });

  test('newest first', async () => {
    const a = await gw.createApp({ name: 'older' });
    const b = await gw.createApp({ name: 'newer' });
    const ids = (await gw.admin('GET', '/admin/apps'))
      .json<{ apps: AppView[] }>()
      .apps.map((x) => x.app_id);
    assert.ok(ids.indexOf(b.app_id) < ids.indexOf(a.app_id));
  });
});

describe('PATCH /admin/apps/{id}', () => {
  test('updates name, webhook_url, allowed_providers and allowed_methods', async () => {
    const app = await gw.createApp({ name: 'Before' });
    const res = await gw.admin('PATCH', `/admin/apps/${app.app_id}`, {
      name: 'After',
      webhook_url: 'https://hooks.example.com/new',
      allowed_providers: ['idr_psp'],
      allowed_methods: { idr_psp: ['va_bni'] },
    });
    assertStatus(res, 200);
    const patched = res.json<AppView>();
    assert.deepEqual(Object.keys(patched), VIEW_KEYS);
    assert.equal(patched.app_id, app.app_id);
    assert.equal(patched.name, 'After');
    assert.equal(patched.mode, 'test');
    assert.equal(patched.api_key, app.api_key, 'keys do not change');
    assert.equal(patched.webhook_url, 'https://hooks.example.com/new');
    assert.deepEqual(patched.allowed_providers, ['idr_psp']);
    assert.deepEqual(patched.allowed_methods, { ...ALL_METHODS, idr_psp: ['va_bni'] });
    assert.equal(patched.created_at, app.created_at);
    assert.ok(!res.text.includes('secret'));
    const listed = (await gw.admin('GET', '/admin/apps'))
      .json<{ apps: AppView[] }>()
      .apps.find((a) => a.app_id === app.app_id);
    assert.deepEqual(listed, patched);
  });

  test('fields left out keep their values; webhook_url null clears it', async () => {
    const app = await gw.createApp({
      name: 'Keep',
      webhook_url: 'https://hooks.example.com/k',
      allowed_providers: ['card_psp'],
    });
    const renamed = await gw.admin('PATCH', `/admin/apps/${app.app_id}`, { name: 'Kept' });
    assertStatus(renamed, 200);
    assert.equal(renamed.json<AppView>().webhook_url, 'https://hooks.example.com/k');
    assert.deepEqual(renamed.json<AppView>().allowed_providers, ['card_psp']);
    const cleared = await gw.admin('PATCH', `/admin/apps/${app.app_id}`, { webhook_url: null });
    assertStatus(cleared, 200);
    assert.equal(cleared.json<AppView>().webhook_url, null);
    assert.equal(cleared.json<AppView>().name, 'Kept');
  });

  test('the patched policy applies to the next payment at once', async () => {
    const app = await gw.createApp();
    assertStatus(
      await gw.admin('PATCH', `/admin/apps/${app.app_id}`, { allowed_providers: ['card_psp'] }),
      200,
    );
    assertError(
      await gw.v1(app, 'POST', '/v1/payments', paymentBody()),
      422,
      'provider idr_psp not allowed for this app',
    );
  });

  test('mode cannot be changed', async () => {
    const app = await gw.createApp();
    for (const mode of ['live', 'test']) {
      assertError(
        await gw.admin('PATCH', `/admin/apps/${app.app_id}`, { mode }),
        400,
        'mode cannot be changed',
      );
    }
    const [row] = await sql<{ mode: string }>(
      gw.databaseUrl,
      'SELECT mode FROM apps WHERE id = $1',
      [app.app_id],
    );
    assert.equal(row?.mode, 'test');
  });

  test('invalid fields: 400 with the reason, nothing changes', async () => {
    const app = await gw.createApp({ name: 'Stable' });
    const cases: [unknown, string][] = [
      [{ name: '' }, 'name must be a non-empty string'],
      [{ webhook_url: 'nope' }, 'webhook_url must be an absolute http(s) URL'],
      [{ allowed_providers: ['bank'] }, 'unknown provider bank'],
      [
        { allowed_methods: { card_psp: ['qris'] } },
        'method qris is not supported by provider card_psp',
      ],
      [[], 'body must be a JSON object'],
      ['{', 'invalid JSON body'],
    ];
    for (const [body, reason] of cases) {
      assertError(await gw.admin('PATCH', `/admin/apps/${app.app_id}`, body), 400, reason);
    }
    const listed = (await gw.admin('GET', '/admin/apps'))
      .json<{ apps: AppView[] }>()
      .apps.find((a) => a.app_id === app.app_id);
    assert.equal(listed?.name, 'Stable');
    assert.deepEqual(listed?.allowed_methods, ALL_METHODS);
  });

  test('404 app not found', async () => {
    assertError(
      await gw.admin('PATCH', '/admin/apps/app_000000000000000000000000', { name: 'x' }),
      404,
      'app not found',
    );
    assertError(
      await gw.admin('PATCH', '/admin/apps/nonsense', { name: 'x' }),
      404,
      'app not found',
    );
  });
});

describe('POST /admin/apps/{id}/regenerate-keys', () => {
  test('returns new keys; the old ones stop working at once and the new ones work', async () => {
    const old = await gw.createApp({ name: 'Rotating', webhook_url: 'https://x.example.com/h' });
    const path = `/v1/payments/${ZERO_ID}`;
    assertError(await gw.v1(old, 'GET', path), 404, 'payment not found');

    const res = await gw.admin('POST', `/admin/apps/${old.app_id}/regenerate-keys`);
    assertStatus(res, 200);
    const fresh = res.json<AppWithSecrets>();
    assert.deepEqual(Object.keys(fresh), CREATE_KEYS);
    assert.equal(fresh.app_id, old.app_id);
    assert.equal(fresh.name, 'Rotating');
    assert.equal(fresh.webhook_url, 'https://x.example.com/h');
    assert.equal(fresh.created_at, old.created_at);
    assert.match(fresh.api_key, /^pk_/);
    assert.notEqual(fresh.api_key, old.api_key);
    assert.notEqual(fresh.signing_secret, old.signing_secret);
    assert.notEqual(fresh.webhook_secret, old.webhook_secret);

    assertError(await gw.v1(old, 'GET', path), 401, 'bad signature');
    // Old key with the new secret, and new key with the old secret: both refused.
    assertError(
      await gw.v1({ ...old, signing_secret: fresh.signing_secret }, 'GET', path),
      401,
      'bad signature',
    );
    assertError(
      await gw.v1({ ...fresh, signing_secret: old.signing_secret }, 'GET', path),
      401,
      'bad signature',
    );
    assertError(await gw.v1(fresh, 'GET', path), 404, 'payment not found');

    const listed = (await gw.admin('GET', '/admin/apps'))
      .json<{ apps: AppView[] }>()
      .apps.find((a) => a.app_id === old.app_id);
    assert.equal(listed?.api_key, fresh.api_key);
  });

  test('404 app not found', async () => {
    assertError(
      await gw.admin('POST', '/admin/apps/app_000000000000000000000000/regenerate-keys'),
      404,
      'app not found',
    );
  });
});

describe('secrets at rest (docs/api.md#apps)', () => {
  test('the apps row holds neither secret in plain text', async () => {
    const app = await gw.createApp({ name: 'Sealed' });
    const check = async (a: { signing_secret: string; webhook_secret: string }) => {
      const rows = await sql<Record<string, unknown>>(
        gw.databaseUrl,
        'SELECT * FROM apps WHERE id = $1',
        [app.app_id],
      );
      assert.equal(rows.length, 1);
      const dump = JSON.stringify(rows[0]);
      assert.ok(!dump.includes(a.signing_secret), 'signing secret stored in plain text');
      assert.ok(!dump.includes(a.webhook_secret), 'webhook secret stored in plain text');
      // Nor in a trivially reversible form.
      for (const secret of [a.signing_secret, a.webhook_secret]) {
        assert.ok(!dump.includes(Buffer.from(secret).toString('base64')));
        assert.ok(!dump.includes(Buffer.from(secret).toString('hex')));
        assert.ok(!dump.includes(secret.slice(-32)));
      }
      const row = rows[0] as { signing_secret_enc: string; webhook_secret_enc: string };
      assert.match(row.signing_secret_enc, /^v1\./);
      assert.match(row.webhook_secret_enc, /^v1\./);
    };
    await check(app);
    const fresh = (
      await gw.admin('POST', `/admin/apps/${app.app_id}/regenerate-keys`)
    ).json<AppWithSecrets>();
    await check(fresh);
  });

  test('the database holds no secret anywhere else either', async () => {
    const app = await gw.createApp({ name: 'Nowhere' });
    const rows = await sql<{ dump: string }>(
      gw.databaseUrl,
      `SELECT string_agg(t::text, ' ') AS dump FROM (
         SELECT row_to_json(a)::text AS t FROM apps a
         UNION ALL SELECT row_to_json(k)::text FROM idempotency_keys k) s`,
    );
    const dump = rows[0]?.dump ?? '';
    assert.ok(dump.includes(app.app_id));
    assert.ok(!dump.includes(app.signing_secret));
    assert.ok(!dump.includes(app.webhook_secret));
  });

  test('an app id is not a payment id', () => {
    assert.doesNotMatch('app_000000000000000000000000', HEX32);
  });
});
