/**
 * Failed admin authentication is throttled per source address (docs/api.md#admin-token,
 * docs/operations.md#hostile-clients; issue 21, finding 7): a token guesser gets 401 until
 * the source's allowance is spent, then 429 `too many failed authentications` with
 * Retry-After for every admin request, the right token included, until the allowance
 * refills; one warning per run of refusals, never with the token in it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../../src/logger.js';
import { assertError, assertStatus } from '../../helpers/core.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import type { HttpResult } from '../../helpers/http.js';

const LIMITED = 'too many failed authentications';
const BURST = 5;
/** 6 a minute: one failure comes back every 10 s. */
const PER_MINUTE = 6;

interface LogLine {
  level: number;
  msg: string;
  source?: string;
}

function capture() {
  const text: string[] = [];
  const stream = { write: (s: string) => void text.push(s) };
  return {
    log: createLogger('warn', stream),
    text: () => text.join(''),
    lines: () => text.map((s) => JSON.parse(s) as LogLine),
  };
}

async function call(
  gw: TestGateway,
  path: string,
  authorization: string | undefined,
  extra: Record<string, string> = {},
  method = 'GET',
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...extra };
  if (authorization !== undefined) headers.authorization = authorization;
  const res = await fetch(gw.url + path, { method, headers });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
}

const wrong = (i: number) => `Bearer guess-${String(i).padStart(6, '0')}-0123456789abcdef`;
const right = `Bearer ${ADMIN_TOKEN}`;

function assertLimited(res: HttpResult, retryAfter: string): void {
  assertError(res, 429, LIMITED);
  assert.equal(res.headers.get('retry-after'), retryAfter);
}

describe('one source guessing the admin token', () => {
  let gw: TestGateway;
  const logs = capture();
  let nowMs = Date.parse('2030-01-01T00:00:00Z');

  before(async () => {
    gw = await startTestGateway(
      {
        ADMIN_AUTH_FAILURES_BURST: String(BURST),
        ADMIN_AUTH_FAILURES_PER_MINUTE: String(PER_MINUTE),
      },
      { log: logs.log },
    );
    gw.running.gw.now = () => nowMs;
  });
  after(() => gw?.stop());

  const warnings = () =>
    logs.lines().filter((l) => l.msg === 'failed admin authentications over the limit');

  test('401 for each wrong token up to the limit, then 429 with Retry-After for everything', async () => {
    for (let i = 0; i < BURST; i++) {
      assertError(await call(gw, '/admin/apps', wrong(i)), 401, 'unauthorized');
    }
    assert.equal(warnings().length, 0, 'nothing logged before the limit');
    assertLimited(await call(gw, '/admin/apps', wrong(BURST)), '10');
    // Limited, the right token is refused too: otherwise a 429 would tell a guess from the token.
    assertLimited(await call(gw, '/admin/apps', right), '10');
    assertLimited(await call(gw, '/admin/apps', undefined), '10');
    assertLimited(await call(gw, '/metrics', right), '10');
    assertLimited(
      await call(gw, '/admin/payments/' + 'a'.repeat(32) + '/refund', right, {}, 'POST'),
      '10',
    );

    const [warning, ...more] = warnings();
    assert.equal(more.length, 0, 'one warning for the run, however many refusals');
    assert.equal(warning?.level, 40, 'warn level');
    assert.equal(warning?.source, '127.0.0.1');
    const logged = logs.text();
    assert.ok(!logged.includes('guess-'), 'no guessed token in the log');
    assert.ok(!logged.includes(ADMIN_TOKEN), 'no admin token in the log');
  });

  test('the limit expires: Retry-After counts down, then one more try per refill', async () => {
    nowMs += 4000;
    assertLimited(await call(gw, '/admin/apps', right), '6');
    nowMs += 6000;
    // One failure came back: the operator's right token works again...
    assertStatus(await call(gw, '/admin/apps', right), 200);
    // ...and a guess gets one 401, after which the source is limited again.
    assertError(await call(gw, '/admin/apps', wrong(100)), 401, 'unauthorized');
    assertLimited(await call(gw, '/admin/apps', wrong(101)), '10');
    assert.equal(warnings().length, 1, 'still the same run: not logged again');
  });

  test('a quiet source gets its whole allowance back; a new run is logged once more', async () => {
    nowMs += 60_000;
    for (let i = 0; i < BURST; i++) {
      assertError(await call(gw, '/admin/apps', wrong(200 + i)), 401, 'unauthorized');
    }
    assertLimited(await call(gw, '/admin/apps', wrong(300)), '10');
    assert.equal(warnings().length, 2);
  });

  test('X-Forwarded-For is ignored without TRUST_PROXY: a guesser cannot pick a new address', async () => {
    assertLimited(
      await call(gw, '/admin/apps', wrong(400), { 'x-forwarded-for': '198.51.100.7' }),
      '10',
    );
  });

  test('a request without Authorization costs nothing', async () => {
    nowMs += 60_000;
    for (let i = 0; i < BURST * 3; i++) {
      assertError(await call(gw, '/admin/apps', undefined), 401, 'unauthorized');
    }
    assertStatus(await call(gw, '/admin/apps', right), 200);
  });

  test('2,000 guesses as fast as the client can send them: 5 answered 401, the rest 429', async () => {
    nowMs += 60_000;
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 40; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_v, i) =>
          call(gw, '/admin/apps', wrong(1000 + batch * 50 + i)),
        ),
      );
      for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(statuses), { 401: BURST, 429: 2000 - BURST });
    assertLimited(await call(gw, '/admin/apps', right), '10');
    nowMs += 10_000;
    assertStatus(await call(gw, '/admin/apps', right), 200);
    const metrics = await call(gw, '/metrics', right);
    assert.match(metrics.text, /^paygate_admin_auth_rate_limited_total (\d+)$/m);
    const counted = /^paygate_admin_auth_rate_limited_total (\d+)$/m.exec(metrics.text)?.[1];
    assert.ok(Number(counted) >= 2000 - BURST, `${counted} refusals counted`);
  });
});

describe('behind a proxy (TRUST_PROXY)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({
      ADMIN_AUTH_FAILURES_BURST: '2',
      ADMIN_AUTH_FAILURES_PER_MINUTE: '1',
      TRUST_PROXY: '1',
    });
  });
  after(() => gw?.stop());

  test('each client address the proxy names has its own allowance', async () => {
    const guesser = { 'x-forwarded-for': '203.0.113.9' };
    const operator = { 'x-forwarded-for': '198.51.100.20' };
    assertError(await call(gw, '/admin/apps', wrong(1), guesser), 401, 'unauthorized');
    assertError(await call(gw, '/admin/apps', wrong(2), guesser), 401, 'unauthorized');
    assertLimited(await call(gw, '/admin/apps', right, guesser), '60');
    assertStatus(await call(gw, '/admin/apps', right, operator), 200);
    assertError(await call(gw, '/admin/apps', wrong(3), operator), 401, 'unauthorized');
  });
});
