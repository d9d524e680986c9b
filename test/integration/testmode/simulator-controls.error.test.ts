import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// The simulators' control routes take no authentication (they stand in for a provider's
// hosted pages), so they validate every input and never answer 5xx.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(() => gw?.stop());

const clock = (body: unknown) => gw.admin('POST', '/sim/clock', body, '');
const MAX = 315_360_000_000;

test('POST /sim/clock: out-of-range or malformed advance_ms is 400 and moves nothing', async () => {
  const offset = () => gw.simClock.offset;
  const start = offset();
  const range = `advance_ms must be an integer from 1 to ${MAX}`;
  const cases: [unknown, string][] = [
    [{ advance_ms: -9007199254740991 }, range],
    [{ advance_ms: 9007199254740991 }, range],
    [{ advance_ms: -1 }, range],
    [{ advance_ms: 0 }, range],
    [{ advance_ms: 1.5 }, range],
    [{ advance_ms: '1000' }, range],
    [{ advance_ms: 1e308 }, range],
    [{ advance_ms: MAX + 1 }, range],
    [{ advance_ms: null }, range],
    [{ reset: 'yes' }, 'advance_ms (integer) or reset:true required'],
    [{}, 'advance_ms (integer) or reset:true required'],
    [[1, 2], 'advance_ms (integer) or reset:true required'],
    ['"text"', 'advance_ms (integer) or reset:true required'],
    ['{"advance_ms":', 'invalid JSON body'],
  ];
  for (const [body, message] of cases) {
    const res = await clock(body);
    assert.deepEqual([res.status, res.text], [400, message], JSON.stringify(body));
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  }
  assert.equal(offset(), start);
});

test('POST /sim/clock: the clock never runs more than ten years ahead', async () => {
  const first = await clock({ advance_ms: MAX });
  assert.equal(first.status, 200, first.text);
  const more = await clock({ advance_ms: 1 });
  assert.deepEqual(
    [more.status, more.text],
    [400, `the simulator clock cannot run more than ${MAX} ms ahead; reset it first`],
  );
  const reset = await clock({ reset: true });
  assert.equal(reset.status, 200);
  const now = Date.parse(reset.json<{ now: string }>().now);
  assert.ok(Math.abs(now - Date.now()) < 60_000, 'back to real time');
  const ok = await clock({ advance_ms: 60_000 });
  assert.equal(ok.status, 200);
  assert.match(ok.json<{ now: string }>().now, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await clock({ reset: true });
});

test('simulator actions with malformed references: 4xx plain text, never 5xx', async () => {
  for (const provider of ['idr_psp', 'card_psp', 'wallet_psp']) {
    for (const path of [
      `/sim/${provider}/payments/nope/pay`,
      `/sim/${provider}/payments/${'9'.repeat(90)}/expire`,
      `/sim/${provider}/payments/%00/fail`,
      `/sim/${provider}/payments/x/../../clock`,
    ]) {
      const res = await gw.admin('POST', path, { wallet: { $ne: 1 } }, '');
      assert.ok(res.status >= 400 && res.status < 500, `${path}: ${res.status}`);
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8', path);
    }
  }
});

test('with PAYGATE_ENV=production the simulators are not mounted', async () => {
  const prod = await startTestGateway({ PAYGATE_ENV: 'production' });
  try {
    const res = await prod.admin('POST', '/sim/clock', { advance_ms: 1000 }, '');
    assert.deepEqual([res.status, res.text], [404, 'not found']);
  } finally {
    await prod.stop();
  }
});
