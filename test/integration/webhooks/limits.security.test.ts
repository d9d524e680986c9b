import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { purgeRejectedInbound } from '../../helpers/state.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { silentAction } from '../../helpers/payments.js';
import { parseResponse, RawSocket } from '../../helpers/rawHttp.js';

// What an unauthenticated sender can make the gateway store through /webhooks/<provider>:
// a per-provider body limit, rejected bodies archived truncated with size and hash, a
// per-source allowance of bad signatures, and a retention of rejected rows.

interface ArchivedEvent {
  id: number;
  raw_body: string;
  raw_body_bytes: number;
  raw_body_sha256: string;
  raw_body_truncated: boolean;
  signature_valid: boolean;
  outcome: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

let gw: TestGateway;
let app: AppWithSecrets;
let serverKey: string;
before(async () => {
  gw = await startTestGateway({
    WEBHOOK_BODY_LIMIT_IDR_PSP: String(64 * 1024),
    WEBHOOK_REJECTED_BODY_BYTES: '4096',
    WEBHOOK_UNVERIFIED_BURST: '3',
    WEBHOOK_UNVERIFIED_PER_MINUTE: '1',
  });
  app = await gw.createApp();
  serverKey = idrTestServerKey(gw.config.masterKey);
});
after(() => gw?.stop());

async function archive(): Promise<ArchivedEvent[]> {
  const res = await gw.admin('GET', '/admin/inbound_events');
  assert.equal(res.status, 200);
  return res.json<{ events: ArchivedEvent[] }>().events;
}

async function newQrisPayment(amount: number, scenario?: 'lost_webhook'): Promise<string> {
  const res = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'buyer-limits',
    email: 'buyer@example.com',
    amount_minor: amount,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
    ...(scenario ? { metadata: { test_scenario: scenario } } : {}),
  });
  assert.equal(res.status, 201, res.text);
  return res.json<{ payment_id: string }>().payment_id;
}

describe('per-provider body limit', () => {
  test('one byte over the idr_psp limit: 413 body too large; at the limit it is read', async () => {
    const over = await postWebhook(gw.url, 'idr_psp', 'x'.repeat(64 * 1024 + 1));
    assert.deepEqual([over.status, over.text], [413, 'body too large']);
    const at = await postWebhook(gw.url, 'idr_psp', 'y'.repeat(64 * 1024));
    assert.deepEqual([at.status, at.text], [401, 'bad signature']);
  });

  test('a declared Content-Length over the limit is refused before the body is sent', async () => {
    const s = new RawSocket(gw.url);
    await s.connected();
    s.write(
      'POST /webhooks/idr_psp HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${1024 * 1024}\r\n\r\n{"a":`,
    );
    assert.equal(await s.closedOrStillOpenAfter(5000), 'closed');
    const res = parseResponse(s.received());
    assert.deepEqual([res?.status, res?.body], [413, 'body too large']);
    s.destroy();
  });

  test('a chunked body is refused while it is read, not after 1 MiB', async () => {
    const s = new RawSocket(gw.url);
    await s.connected();
    s.write(
      'POST /webhooks/idr_psp HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n' +
        'Transfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = 'z'.repeat(8 * 1024);
    // 72 KiB sent, the body never finished: the answer comes while the sender still sends.
    for (let i = 0; i < 9; i++) s.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    assert.equal(await s.closedOrStillOpenAfter(5000), 'closed');
    const res = parseResponse(s.received());
    assert.deepEqual([res?.status, res?.body], [413, 'body too large']);
    s.destroy();
  });

  test('other routes keep the 1 MiB limit', async () => {
    const res = await gw.admin('POST', '/admin/apps', 'x'.repeat(1024 * 1024 + 1));
    assert.deepEqual([res.status, res.text], [413, 'body too large']);
    const under = await gw.admin('POST', '/admin/apps', `{"name":"${'n'.repeat(100 * 1024)}"}`);
    assert.notEqual(under.status, 413);
  });
});

describe('archive of rejected bodies', () => {
  test('a bad-signature body is kept truncated, with its full size and SHA-256', async () => {
    const body = JSON.stringify({ order_id: 'forged', pad: 'p'.repeat(10_000) });
    const res = await postWebhook(gw.url, 'idr_psp', body);
    assert.deepEqual([res.status, res.text], [401, 'bad signature']);
    const row = (await archive()).find((e) => e.raw_body_sha256 === sha256(body));
    assert.ok(row, 'archived');
    assert.equal(row.raw_body, body.slice(0, 4096));
    assert.equal(row.raw_body_bytes, Buffer.byteLength(body));
    assert.equal(row.raw_body_truncated, true);
    assert.equal(row.signature_valid, false);
    assert.equal(row.outcome, 'bad_signature');
  });

  test('a signature-valid body larger than the truncation is kept whole', async () => {
    const id = await newQrisPayment(7000);
    const body = idrNotification(serverKey, {
      orderId: id,
      status: 'pending',
      grossAmount: 7000,
      statusMessage: 'm'.repeat(9000),
    });
    const res = await postWebhook(gw.url, 'idr_psp', body);
    assert.equal(res.status, 200, res.text);
    const events = (await gw.admin('GET', `/admin/inbound_events?payment_id=${id}`)).json<{
      events: ArchivedEvent[];
    }>().events;
    assert.equal(events.length, 1);
    assert.equal(events[0]?.raw_body, body);
    assert.equal(events[0]?.raw_body_bytes, Buffer.byteLength(body));
    assert.equal(events[0]?.raw_body_sha256, sha256(body));
    assert.equal(events[0]?.raw_body_truncated, false);
  });
});

describe('rate limit of unverified webhooks per source address', () => {
  test('past the allowance: 429 with Retry-After, not archived; the provider still gets through', async () => {
    // The other tests of this file spent the allowance of 127.0.0.1 (burst 3, 1 a minute);
    // find where it ends without depending on their order.
    let limited: Awaited<ReturnType<typeof postWebhook>> | undefined;
    for (let i = 0; i < 5 && !limited; i++) {
      const res = await postWebhook(gw.url, 'idr_psp', `{"forged":${i}}`);
      if (res.status === 429) limited = res;
      else assert.deepEqual([res.status, res.text], [401, 'bad signature']);
    }
    assert.ok(limited, 'a 429 within burst + 2 bad signatures');
    const before = (await archive()).length;

    const refused = await fetch(`${gw.url}/webhooks/idr_psp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ forged: 'again', pad: 'q'.repeat(30_000) }),
    });
    assert.equal(refused.status, 429);
    assert.equal(await refused.text(), 'too many unverified webhooks');
    assert.equal(refused.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.match(String(refused.headers.get('retry-after')), /^[1-9]\d*$/);
    assert.equal((await archive()).length, before, 'nothing archived');

    // The provider, from the same address: verified, archived and applied. The buyer pays
    // first (no notification sent: lost_webhook), so the status API the gateway asks agrees.
    const id = await newQrisPayment(8000, 'lost_webhook');
    const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
    await silentAction(gw, 'idr', read.json<{ provider_ref: string }>().provider_ref, 'pay');
    const good = idrNotification(serverKey, {
      orderId: id,
      status: 'settlement',
      grossAmount: 8000,
    });
    const ok = await postWebhook(gw.url, 'idr_psp', good);
    assert.deepEqual([ok.status, ok.text], [200, '{"acknowledged":true}']);
    assert.equal((await archive()).length, before + 1);

    // Verified traffic costs no allowance: the next forgery is still refused.
    const still = await postWebhook(gw.url, 'idr_psp', '{"forged":"later"}');
    assert.equal(still.status, 429);
    const metrics = await gw.admin('GET', '/metrics');
    assert.match(metrics.text, /paygate_webhooks_rate_limited_total\{provider="idr_psp"\} [1-9]/);
  });
});

describe('retention of rejected rows', () => {
  let pool: Pool;
  before(() => {
    pool = createPool(gw.databaseUrl, 4);
  });
  after(() => pool?.end());

  test('old bad-signature rows are deleted in batches; valid and recent rows stay', async () => {
    const insert = (outcome: string, valid: boolean, daysAgo: number) =>
      pool.query<{ id: string }>(
        `INSERT INTO inbound_events (provider, headers, raw_body, signature_valid, outcome, received_at)
         VALUES ('idr_psp', '{}', 'retention-test', $1, $2, now() - $3 * interval '1 day')
         RETURNING id`,
        [valid, outcome, daysAgo],
      );
    const old: string[] = [];
    for (let i = 0; i < 7; i++) old.push((await insert('bad_signature', false, 8)).rows[0]!.id);
    const keep = [
      (await insert('bad_signature', false, 6)).rows[0]!.id,
      (await insert('finalized_succeeded', true, 30)).rows[0]!.id,
      (await insert('mode_mismatch', false, 30)).rows[0]!.id,
    ];
    // Two instances purging at once, in batches of 2: each row deleted once, none skipped.
    const purger = async () => {
      let n = 0;
      for (let d; (d = await purgeRejectedInbound(pool, 7, 2)) > 0;) n += d;
      return n;
    };
    const [a, b] = await Promise.all([purger(), purger()]);
    assert.equal(a + b, 7);
    const left = await pool.query<{ id: string }>(
      `SELECT id FROM inbound_events WHERE raw_body = 'retention-test' ORDER BY id`,
    );
    assert.deepEqual(
      left.rows.map((r) => r.id),
      keep,
    );
  });
});
