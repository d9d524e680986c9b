/**
 * GET /v1/events pages are bounded by bytes as well as by `limit`
 * (docs/api.md#list-your-events): a page of events with metadata at its size limit stops
 * before its payloads pass 1 MiB, says has_more, and paging on reaches every event exactly
 * once, an event larger than the budget included (alone on its page).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { unpackEventBody, type StoredEventBody } from '../../../src/db/eventBody.js';
import { assertStatus, paymentBody, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { simAction } from '../../helpers/payments.js';
import type { AppWithSecrets } from '../../helpers/contract.js';

const PAGE_BUDGET = 1_048_576;
const MAX_METADATA_BYTES = 32_768;
const FAT_EVENTS = 70;

interface Feed {
  events: { id: string; payload: { payment_id: string } }[];
  has_more: boolean;
}

let gw: TestGateway;
let app: AppWithSecrets;
const paymentIds: string[] = [];
let legacyEventId = '';

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Fat shop' });
  for (let i = 0; i < FAT_EVENTS; i++) {
    const metadata = { order: `O-${i}`, blob: '' };
    metadata.blob = 'x'.repeat(MAX_METADATA_BYTES - Buffer.byteLength(JSON.stringify(metadata)));
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody({ metadata }));
    assertStatus(res, 201);
    const id = res.json<{ payment_id: string }>().payment_id;
    const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
    const r = await simAction(gw, 'idr', read.json<{ provider_ref: string }>().provider_ref, 'pay');
    assert.equal(r.gateway_status, 200, r.gateway_body);
    paymentIds.push(id);
  }
  // An event stored before metadata had limits: its payload alone is over the page budget.
  // No request can make one any more, so it is written the way such a row was stored.
  const [stored] = await sql<StoredEventBody>(
    gw.databaseUrl,
    `SELECT event_type, body, body_codec, body_packed FROM outbound_events WHERE payment_id = $1`,
    [paymentIds[0]],
  );
  const rows = await sql<{ id: string }>(
    gw.databaseUrl,
    `INSERT INTO outbound_events (id, app_id, payment_id, event_type, body)
     SELECT 'evt_' || substr(md5(random()::text), 1, 24), app_id, payment_id, event_type,
       jsonb_set($2::jsonb, '{metadata,blob}', to_jsonb(repeat('y', 1100000)))::text
     FROM outbound_events WHERE payment_id = $1
     RETURNING id`,
    [paymentIds[0], unpackEventBody(stored as StoredEventBody)],
  );
  legacyEventId = rows[0]?.id ?? '';
  const last = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({ metadata: { order: 'last' } }),
  );
  assertStatus(last, 201);
  const id = last.json<{ payment_id: string }>().payment_id;
  const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  const r = await simAction(gw, 'idr', read.json<{ provider_ref: string }>().provider_ref, 'pay');
  assert.equal(r.gateway_status, 200, r.gateway_body);
  paymentIds.push(id);
});

after(async () => {
  await gw?.stop();
});

test('pages stop at the byte budget and paging reaches every event exactly once', async () => {
  const seen: string[] = [];
  const pageSizes: number[] = [];
  let after = '';
  for (let page = 0; page < 50; page++) {
    const res = await gw.v1(app, 'GET', `/v1/events?limit=100&after=${after}`);
    assertStatus(res, 200);
    const body = res.json<Feed>();
    assert.ok(body.events.length >= 1, 'a page before the end is never empty');
    const payloadBytes = body.events.reduce(
      (n, e) => n + Buffer.byteLength(JSON.stringify(e.payload)),
      0,
    );
    if (body.events.length > 1) {
      assert.ok(payloadBytes <= PAGE_BUDGET, `page ${page}: ${payloadBytes} payload bytes`);
      // The response adds a bounded frame per event around the payloads.
      assert.ok(Buffer.byteLength(res.text) <= PAGE_BUDGET + 200 * body.events.length);
    } else if (body.events[0]?.id === legacyEventId) {
      assert.ok(payloadBytes > PAGE_BUDGET, 'the oversized event comes alone');
    }
    pageSizes.push(body.events.length);
    seen.push(...body.events.map((e) => e.id));
    after = body.events.at(-1)?.id ?? after;
    if (!body.has_more) break;
  }
  assert.equal(new Set(seen).size, seen.length, 'no event twice');
  const all = await sql<{ id: string }>(
    gw.databaseUrl,
    `SELECT id FROM outbound_events WHERE app_id = $1 ORDER BY txid, created_at, id`,
    [app.app_id],
  );
  assert.deepEqual(
    seen,
    all.map((r) => r.id),
    'every event, in feed order',
  );
  assert.equal(seen.length, FAT_EVENTS + 2);
  // 33 KB payloads: about 31 fit; the oversized one alone; the last small one after it.
  assert.ok(pageSizes.length >= 4, `pages ${pageSizes.join(',')}`);
  assert.ok(Math.max(...pageSizes) < 40, `pages ${pageSizes.join(',')}`);
  assert.ok(pageSizes.includes(1));
  assert.ok(seen.includes(legacyEventId));
});

test('a small limit still wins over the budget, and has_more follows the last page', async () => {
  const res = await gw.v1(app, 'GET', '/v1/events?limit=5');
  const body = res.json<Feed>();
  assert.equal(body.events.length, 5);
  assert.equal(body.has_more, true);
  const lastId = (
    await sql<{ id: string }>(
      gw.databaseUrl,
      `SELECT id FROM outbound_events WHERE app_id = $1 ORDER BY txid DESC, created_at DESC, id DESC LIMIT 2`,
      [app.app_id],
    )
  ).map((r) => r.id);
  const tail = (await gw.v1(app, 'GET', `/v1/events?after=${lastId[1] ?? ''}`)).json<Feed>();
  assert.deepEqual(
    tail.events.map((e) => e.id),
    [lastId[0]],
  );
  assert.equal(tail.has_more, false);
});
