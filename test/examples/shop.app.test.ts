/**
 * `npm run example:shop` run again and again against one gateway uses one app: found by name,
 * its keys kept in the state file while they work, regenerated when they do not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { SHOP_APP_NAME, startShop, type RunningShop } from '../../examples/shop/shop.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
const dir = mkdtempSync(path.join(os.tmpdir(), 'paygate-shop-app-'));
const stateFile = path.join(dir, 'data', 'example-shop-app.json');
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Kept {
  app_id: string;
  api_key: string;
  signing_secret: string;
  webhook_secret: string;
}
const kept = () => JSON.parse(readFileSync(stateFile, 'utf8')) as Kept;

async function shopApps() {
  const res = await gw.admin('GET', '/admin/apps');
  const { apps } = res.json<{ apps: { app_id: string; name: string; webhook_url: string }[] }>();
  return apps.filter((a) => a.name === SHOP_APP_NAME);
}

/** A shop started, one order paid for through it (the keys in use work), the shop stopped. */
async function run(port = 0, withState = true): Promise<RunningShop> {
  const shop = await startShop({
    gatewayUrl: gw.url,
    adminToken: ADMIN_TOKEN,
    port,
    ...(withState ? { stateFile } : {}),
  });
  try {
    const res = await fetch(`${shop.url}/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ product: 'kopi', email: 'buyer@example.com' }).toString(),
      redirect: 'manual',
    });
    assert.equal(res.status, 303, await res.text());
  } finally {
    await shop.stop();
  }
  return shop;
}

test('the first start creates "Example shop" and keeps its id and keys (mode 600)', async () => {
  const first = await run();
  assert.equal(first.appReused, false);
  const apps = await shopApps();
  assert.equal(apps.length, 1);
  assert.equal(kept().app_id, first.appId);
  assert.equal(apps[0]?.app_id, first.appId);
  assert.equal(statSync(stateFile).mode & 0o777, 0o600);
});

test('later starts reuse it with the kept keys; a new shop URL moves its webhook_url', async () => {
  const before = kept();
  const second = await run();
  const third = await run();
  assert.deepEqual([second.appReused, third.appReused], [true, true]);
  assert.deepEqual([second.appId, third.appId], [before.app_id, before.app_id]);
  assert.deepEqual(kept(), before); // not regenerated
  const apps = await shopApps();
  assert.equal(apps.length, 1);
  assert.equal(apps[0]?.webhook_url, `${third.url}/webhooks/paygate`);
});

test('keys regenerated elsewhere, or no state file: the same app, new keys kept', async () => {
  const before = kept();
  const regen = await gw.admin('POST', `/admin/apps/${before.app_id}/regenerate-keys`);
  assert.equal(regen.status, 200);
  const again = await run();
  assert.equal(again.appId, before.app_id);
  assert.notEqual(kept().api_key, before.api_key);

  rmSync(stateFile);
  const byName = await run(0, false);
  assert.equal(byName.appId, before.app_id);
  assert.equal(byName.appReused, true);
  assert.equal((await shopApps()).length, 1);
});
