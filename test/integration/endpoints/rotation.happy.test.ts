import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../../sdk/src/index.js';
import type { AppWithSecrets, CreatedEndpoint, EndpointView } from '../../helpers/contract.js';
import { disableFailingEndpoints } from '../../helpers/jobs.js';
import { assertError, assertStatus, RFC3339_UTC, sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { sign } from '../../helpers/http.js';
import { paidPayment } from '../../helpers/payments.js';
import { Receiver, type Received } from '../../helpers/receiver.js';

// Rotation without an outage, recover and auto-disable (docs/api.md#webhook-endpoints,
// #regenerate-keys), over real HTTP with real receivers. The gateway's clock is moved past a
// window; deliveries stamped by that clock are then verified with a wide tolerance.

let gw: TestGateway;
const receivers: Receiver[] = [];
const HOUR = 3_600_000;
const ZERO_ID = '0'.repeat(32);

before(async () => {
  gw = await startTestGateway({
    DELIVERY_MAX_ATTEMPTS: '2',
    DELIVERY_BASE_DELAY_MS: '50',
    DELIVERY_MAX_DELAY_MS: '100',
  });
});
after(async () => {
  for (const r of receivers) await r.stop();
  await gw?.stop();
});

async function receiver(): Promise<Receiver> {
  const r = new Receiver();
  await r.start();
  receivers.push(r);
  return r;
}

function moveClock(byMs: number): () => void {
  const real = gw.running.gw.now;
  gw.running.gw.now = () => Date.now() + byMs;
  return () => {
    gw.running.gw.now = real;
  };
}

/** A signed /v1 request stamped with the gateway's (possibly moved) clock. */
async function v1At(app: { api_key: string; signing_secret: string }, path: string) {
  const ts = String(Math.floor(gw.running.gw.now() / 1000));
  const res = await fetch(gw.url + path, {
    headers: {
      'X-PAY-Key': app.api_key,
      'X-PAY-Timestamp': ts,
      'X-PAY-Signature': sign(app.signing_secret, ts, 'GET', path, ''),
    },
  });
  return { status: res.status, text: await res.text() };
}

const wide = { toleranceSec: 10 * 24 * 3600 };
const verifies = (got: Received, secret: string) => {
  try {
    verifyWebhook(got.body, got.headers, secret, wide);
    return true;
  } catch {
    return false;
  }
};

async function endpointFor(app: AppWithSecrets, r: Receiver): Promise<CreatedEndpoint> {
  const res = await gw.admin('POST', `/admin/apps/${app.app_id}/endpoints`, {
    url: r.url,
    event_types: ['*'],
  });
  assertStatus(res, 201);
  return res.json<CreatedEndpoint>();
}

describe('endpoint secret rotation', () => {
  test('during the window a receiver with the old secret and one with the new both verify; after it only the new', async () => {
    const app = await gw.createApp();
    const r = await receiver();
    const ep = await endpointFor(app, r);
    const path = `/admin/apps/${app.app_id}/endpoints/${ep.endpoint_id}/rotate-secret`;
    const res = await gw.admin('POST', path, { grace_hours: 24 });
    assertStatus(res, 200);
    const rotated = res.json<{ endpoint_id: string; secret: string; rotates_at: string }>();
    assert.deepEqual(Object.keys(rotated), ['endpoint_id', 'secret', 'rotates_at']);
    assert.match(rotated.secret, /^whsec_[0-9a-f]{64}$/);
    assert.notEqual(rotated.secret, ep.secret);
    assert.match(rotated.rotates_at, RFC3339_UTC);
    const window = Date.parse(rotated.rotates_at) - Date.now();
    assert.ok(window > 24 * HOUR - 60_000 && window <= 24 * HOUR, `window ${window} ms`);
    const listed = (await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints`)).json<{
      endpoints: EndpointView[];
    }>().endpoints[0];
    assert.equal(listed?.rotates_at, rotated.rotates_at);

    await paidPayment(gw, app, 'idr', 1000);
    const [during] = await r.waitFor(1);
    assert.ok(during);
    assert.match(String(during.headers['x-pay-signature-next']), /^[0-9a-f]{64}$/);
    assert.ok(verifies(during, ep.secret), 'the old secret verifies X-PAY-Signature');
    assert.ok(verifies(during, rotated.secret), 'the new secret verifies X-PAY-Signature-Next');
    assert.ok(!verifies(during, app.webhook_secret), 'no other secret verifies');

    // The next event's first attempt fails, and moves the gateway's clock past the window
    // before answering: its retry is signed after the window.
    let restore = () => undefined as void;
    r.behaviour = (i) => {
      if (i === 1) restore = moveClock(25 * HOUR);
      return { status: i === 1 ? 500 : 200 };
    };
    try {
      await paidPayment(gw, app, 'idr', 1000);
      const [first, afterWindow] = (await r.waitFor(3)).slice(1) as [Received, Received];
      assert.ok(verifies(first, ep.secret), 'the first attempt was still in the window');
      assert.equal(afterWindow.headers['x-pay-signature-next'], undefined);
      assert.ok(verifies(afterWindow, rotated.secret), 'the new secret verifies after the window');
      assert.ok(!verifies(afterWindow, ep.secret), 'the old secret no longer does');
    } finally {
      restore();
    }
  });

  test('grace_hours 0 (or no body): the new secret signs at once, the old one never again', async () => {
    const app = await gw.createApp();
    const r = await receiver();
    const ep = await endpointFor(app, r);
    const res = await gw.admin(
      'POST',
      `/admin/apps/${app.app_id}/endpoints/${ep.endpoint_id}/rotate-secret`,
    );
    assertStatus(res, 200);
    const rotated = res.json<{ secret: string; rotates_at: string }>();
    assert.ok(Math.abs(Date.parse(rotated.rotates_at) - Date.now()) < 60_000);
    await paidPayment(gw, app, 'idr', 1000);
    const [got] = await r.waitFor(1);
    assert.ok(got);
    assert.equal(got.headers['x-pay-signature-next'], undefined);
    assert.ok(verifies(got, rotated.secret));
    assert.ok(!verifies(got, ep.secret));
  });
});

describe('app keys: regenerate-keys with grace', () => {
  test('the old api key and signing secret keep authenticating on /v1 until rotates_at; webhook_url gets both signatures', async () => {
    const r = await receiver();
    const old = await gw.createApp({ webhook_url: r.url });
    assertError(
      await gw.admin('POST', `/admin/apps/${old.app_id}/regenerate-keys`, { grace_hours: -1 }),
      400,
      'grace_hours must be an integer from 0 to 168',
    );
    const res = await gw.admin('POST', `/admin/apps/${old.app_id}/regenerate-keys`, {
      grace_hours: 2,
    });
    assertStatus(res, 200);
    const fresh = res.json<AppWithSecrets & { rotates_at: string }>();
    assert.equal(Object.keys(fresh).at(-1), 'rotates_at');
    const window = Date.parse(fresh.rotates_at) - Date.now();
    assert.ok(window > 2 * HOUR - 60_000 && window <= 2 * HOUR, `window ${window} ms`);
    assert.notEqual(fresh.api_key, old.api_key);

    const path = `/v1/payments/${ZERO_ID}`;
    // Both pairs authenticate (404: signed in, no such payment); crossed pairs do not.
    assert.deepEqual(await v1At(old, path), { status: 404, text: 'payment not found' });
    assert.deepEqual(await v1At(fresh, path), { status: 404, text: 'payment not found' });
    assert.deepEqual(await v1At({ ...old, signing_secret: fresh.signing_secret }, path), {
      status: 401,
      text: 'bad signature',
    });
    // The old key creates payments for the same app during the window.
    const p = await paidPayment(gw, old, 'idr', 1000);
    const [during] = await r.waitFor(1);
    assert.ok(during);
    assert.ok(during.body.includes(p.id));
    assert.ok(verifies(during, old.webhook_secret), 'X-PAY-Signature: the old webhook secret');
    assert.ok(verifies(during, fresh.webhook_secret), 'X-PAY-Signature-Next: the new one');

    const restore = moveClock(2 * HOUR + 60_000);
    try {
      assert.deepEqual(await v1At(old, path), { status: 401, text: 'bad signature' });
      assert.deepEqual(await v1At(fresh, path), { status: 404, text: 'payment not found' });
      // A fresh delivery of the same event, signed at send time by the moved clock.
      const again = await gw.admin('POST', `/admin/apps/${old.app_id}/redeliver`, {
        since: '2020-01-01',
      });
      assertStatus(again, 202);
      const afterWindow = (await r.waitFor(2))[1] as Received;
      assert.equal(afterWindow.headers['x-pay-signature-next'], undefined);
      assert.ok(verifies(afterWindow, fresh.webhook_secret));
      assert.ok(!verifies(afterWindow, old.webhook_secret));
    } finally {
      restore();
    }
    const audit = await sql<{ details: Record<string, unknown> }>(
      gw.databaseUrl,
      `SELECT details FROM audit_log WHERE target_id = $1 AND action = 'app.regenerate_keys'`,
      [old.app_id],
    );
    assert.deepEqual(audit[0]?.details, { grace_hours: 2 });
  });
});

describe('recover and auto-disable', () => {
  test('recover re-sends what the endpoint did not get since a time, once', async () => {
    const app = await gw.createApp();
    const r = await receiver();
    r.behaviour = () => ({ status: 503, body: 'maintenance' });
    const ep = await endpointFor(app, r);
    const since = new Date(Date.now() - 1000).toISOString();
    const paid = [await paidPayment(gw, app, 'idr', 1000), await paidPayment(gw, app, 'idr', 2000)];
    await eventually(async () => {
      const rows = await sql<{ n: number }>(
        gw.databaseUrl,
        `SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = $1 AND status = 'dead'`,
        [ep.endpoint_id],
      );
      return rows[0]?.n === 2;
    });
    const failing = (await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints`)).json<{
      endpoints: EndpointView[];
    }>().endpoints[0];
    assert.match(String(failing?.failing_since), RFC3339_UTC);

    r.behaviour = () => ({ status: 200 });
    r.received.length = 0;
    const path = `/admin/apps/${app.app_id}/endpoints/${ep.endpoint_id}/recover`;
    assertError(await gw.admin('POST', path, {}), 400, 'missing required fields: since');
    assertError(
      await gw.admin('POST', path, { since: 'yesterday' }),
      400,
      'since must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)',
    );
    const res = await gw.admin('POST', path, { since });
    assertStatus(res, 202);
    assert.deepEqual(res.json(), { deliveries: 2 });
    const got = await r.waitFor(2);
    assert.deepEqual(
      got.map((g) => (JSON.parse(g.body) as { payment_id: string }).payment_id).sort(),
      paid.map((p) => p.id).sort(),
    );
    await eventually(async () => {
      const e = (await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints`)).json<{
        endpoints: EndpointView[];
      }>().endpoints[0];
      return e?.failing_since === null;
    }, 'a delivered attempt clears failing_since');
    // Everything was got now: a second recover sends nothing.
    await eventually(async () => {
      const again = await gw.admin('POST', path, { since });
      return again.json<{ deliveries: number }>().deliveries === 0;
    });

    await gw.admin('DELETE', `/admin/apps/${app.app_id}/endpoints/${ep.endpoint_id}`);
    assertError(await gw.admin('POST', path, { since }), 422, 'endpoint is disabled');
  });

  test('an endpoint whose every attempt failed for ENDPOINT_DISABLE_AFTER_DAYS is disabled, audited, logged and counted', async () => {
    const app = await gw.createApp();
    const r = await receiver();
    r.behaviour = () => ({ status: 500 });
    const ep = await endpointFor(app, r);
    await paidPayment(gw, app, 'idr', 1000);
    await eventually(async () => {
      const rows = await sql<{ failing_since: Date | null }>(
        gw.databaseUrl,
        'SELECT failing_since FROM webhook_endpoints WHERE id = $1',
        [ep.endpoint_id],
      );
      return rows[0]?.failing_since != null;
    });
    const lines: { obj: object; msg: string }[] = [];
    const log = { error: (obj: object, msg: string) => lines.push({ obj, msg }) };
    // Four days of failures: not yet.
    await sql(
      gw.databaseUrl,
      `UPDATE webhook_endpoints SET failing_since = now() - interval '4 days' WHERE id = $1`,
      [ep.endpoint_id],
    );
    assert.equal(await disableFailingEndpoints(gw.running.gw.pool, 5, log), 0);
    // Five days and a minute: disabled.
    await sql(
      gw.databaseUrl,
      `UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1`,
      [ep.endpoint_id],
    );
    const metric = async () => {
      const text = (await gw.admin('GET', '/metrics')).text;
      const m = /^paygate_webhook_endpoints_auto_disabled_total (\d+)$/m.exec(text);
      return Number(m?.[1] ?? NaN);
    };
    const before = await metric();
    assert.equal(await disableFailingEndpoints(gw.running.gw.pool, 5, log), 1);
    assert.equal(await metric(), before + 1);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.msg, 'webhook endpoint disabled: every attempt failed');
    assert.equal((lines[0]?.obj as { endpoint_id: string }).endpoint_id, ep.endpoint_id);
    const e = (await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints`)).json<{
      endpoints: EndpointView[];
    }>().endpoints[0];
    assert.equal(e?.disabled, true);
    assert.equal(e?.disabled_reason, 'every attempt failed for 5 days');
    const audit = (await gw.admin('GET', `/admin/audit?action=endpoint.auto_disable`)).json<{
      entries: { target_type: string; target_id: string; outcome: string; actor: string }[];
    }>().entries;
    assert.equal(audit[0]?.target_type, 'endpoint');
    // The gateway acted by itself: neither root nor an operator.
    assert.equal(audit[0]?.actor, 'system');
    assert.equal(audit[0]?.target_id, ep.endpoint_id);
    assert.equal(audit[0]?.outcome, 'disabled');
    // Nothing more to disable.
    assert.equal(await disableFailingEndpoints(gw.running.gw.pool, 5, log), 0);
  });
});
