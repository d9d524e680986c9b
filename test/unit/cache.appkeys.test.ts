import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuthenticatedApp } from '../../src/auth/appAuth.js';
import type { AppRow } from '../../src/db/apps.js';
import { AppKeyCache } from '../../src/cache.js';

// Issue 29: the app-key cache is bounded by bytes, whatever the keys a request carries weigh.

const app = (id: string): AuthenticatedApp => ({
  app: {
    id,
    name: 'shop',
    mode: 'test',
    api_key: `pk_test_${id}`,
    signing_secret_enc: 's'.repeat(60),
    webhook_secret_enc: 'w'.repeat(60),
    webhook_url: null,
    allowed_providers: ['idr_psp'],
    allowed_methods: { idr_psp: ['qris'] },
    previous_api_key: null,
    previous_signing_secret_enc: null,
    previous_webhook_secret_enc: null,
    keys_rotate_at: null,
    created_at: new Date(0),
    updated_at: new Date(0),
  } satisfies AppRow,
  signingSecret: 'secret',
});

test('unknown keys of 16 KiB each are remembered within the byte budget, the oldest forgotten', async () => {
  const loads: string[] = [];
  const cache = new AppKeyCache(
    (key) => {
      loads.push(key);
      return Promise.resolve(null);
    },
    60_000,
    60_000,
    100_000,
  );
  const key = (n: number) => String(n).padStart(16_384, 'k');
  for (let n = 0; n < 50; n++) assert.equal(await cache.get(key(n), 1_000), null);
  assert.ok(cache.size <= 100_000, `charged ${cache.size} bytes`);
  // 128 + 16,384 bytes an entry: 6 fit in 100,000.
  assert.equal(cache.size, 6 * (128 + 16_384));
  loads.length = 0;
  assert.equal(await cache.get(key(49), 1_000), null);
  assert.equal(await cache.get(key(44), 1_000), null);
  assert.deepEqual(loads, [], 'the newest six are still remembered');
  assert.equal(await cache.get(key(43), 1_000), null);
  assert.deepEqual(loads, [key(43)], 'an older one was forgotten and is loaded again');
});

test('a known key is charged its app row; invalidating the app gives its bytes back', async () => {
  const cache = new AppKeyCache((key) =>
    Promise.resolve(key.startsWith('pk_') ? app('app_a') : null),
  );
  assert.equal(cache.size, 0);
  const found = await cache.get('pk_test_1', 1_000);
  assert.equal(found?.app.id, 'app_a');
  const charged = cache.size;
  assert.equal(charged, 128 + 'pk_test_1'.length + 1024 + JSON.stringify(app('app_a').app).length);
  await cache.get('bad_key', 1_000);
  assert.equal(cache.size, charged + 128 + 'bad_key'.length);
  // Expired and loaded again: charged once, not twice.
  await cache.get('pk_test_1', 10_000_000);
  assert.equal(cache.size, charged + 128 + 'bad_key'.length);
  cache.invalidateApp('app_a');
  assert.equal(cache.size, 128 + 'bad_key'.length);
  cache.clear();
  assert.equal(cache.size, 0);
});

test('a request after an invalidation does not join a load that started before it', async () => {
  const loads: ((v: AuthenticatedApp | null) => void)[] = [];
  const cache = new AppKeyCache(
    () => new Promise<AuthenticatedApp | null>((resolve) => loads.push(resolve)),
  );
  const before = cache.get('pk_test_a');
  const joined = cache.get('pk_test_a');
  assert.equal(loads.length, 1, 'a second request joins the load under way');
  cache.invalidateApp('app_a');
  const after = cache.get('pk_test_a');
  assert.equal(loads.length, 2, 'after the invalidation, a load of its own');
  loads[0]?.(app('app_old'));
  loads[1]?.(app('app_new'));
  assert.equal((await before)?.app.id, 'app_old');
  assert.equal((await joined)?.app.id, 'app_old');
  assert.equal((await after)?.app.id, 'app_new');
  // The newer load is the one remembered; the older one's end did not drop it from loading.
  assert.equal((await cache.get('pk_test_a'))?.app.id, 'app_new');
  assert.equal(loads.length, 2);
});
