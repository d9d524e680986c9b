import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeliveryConfig } from '../../src/config.js';
import { retryDelayMs, verdict } from '../../src/delivery/schedule.js';

// docs/api.md#delivery-and-retries: 16 attempts in all by default; the delay before retry n
// is min(5 s * 2^(n-1), 1 h) plus up to 10 % jitter.

const DEFAULTS: DeliveryConfig = {
  maxAttempts: 16,
  baseDelayMs: 5000,
  maxDelayMs: 3_600_000,
  timeoutMs: 10_000,
};

const noJitter = () => 0;
/** Math.random's largest value is just below 1. */
const fullJitter = () => 1 - Number.EPSILON;

test('without jitter the delays double from 5 s and stop at 1 h', () => {
  const delays = Array.from({ length: 15 }, (_, i) => retryDelayMs(DEFAULTS, i + 1, noJitter));
  assert.deepEqual(
    delays,
    [
      5000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 2_560_000,
      3_600_000, 3_600_000, 3_600_000, 3_600_000, 3_600_000,
    ],
  );
});

test('the cap holds for any retry number, however large', () => {
  for (const n of [12, 40, 41, 100, 1000, Number.MAX_SAFE_INTEGER]) {
    assert.equal(retryDelayMs(DEFAULTS, n, noJitter), 3_600_000);
    assert.ok(retryDelayMs(DEFAULTS, n, fullJitter) <= 3_960_000);
  }
});

test('jitter adds 0 to 10 % of the delay, never less, never more', () => {
  for (let n = 1; n <= 15; n++) {
    const base = retryDelayMs(DEFAULTS, n, noJitter);
    assert.equal(
      retryDelayMs(DEFAULTS, n, () => 0.5),
      Math.round(base * 1.05),
    );
    assert.equal(retryDelayMs(DEFAULTS, n, fullJitter), Math.round(base * 1.1));
    for (let i = 0; i < 50; i++) {
      const d = retryDelayMs(DEFAULTS, n);
      assert.ok(
        d >= base && d <= Math.round(base * 1.1),
        `retry ${n}: ${d} outside [${base}, 1.1x]`,
      );
    }
  }
});

test('the schedule is configuration: base and cap come from the config', () => {
  const cfg = { ...DEFAULTS, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(cfg, n, noJitter)),
    [100, 200, 400, 800, 1000, 1000],
  );
});

test('16 attempts in all: 15 retries, then dead; about 6.5 hours end to end', () => {
  let attempt = 1;
  let waitedMs = 0;
  while (verdict(503, attempt, DEFAULTS.maxAttempts) === 'retry') {
    waitedMs += retryDelayMs(DEFAULTS, attempt, noJitter);
    attempt++;
  }
  assert.equal(attempt, 16);
  assert.equal(verdict(503, 16, DEFAULTS.maxAttempts), 'dead');
  // 5115 s of doubling, then five hours at the cap.
  assert.equal(waitedMs, 23_115_000);
  // With full jitter at most 10 % more: between 6.4 and 7.1 hours.
  assert.ok(waitedMs > 6.4 * 3600_000 && waitedMs * 1.1 < 7.1 * 3600_000);
});

test('verdict: 2xx delivered at once, 4xx dead at once, 5xx and no answer retried', () => {
  for (const s of [200, 201, 204, 299]) assert.equal(verdict(s, 1, 16), 'delivered');
  for (const s of [400, 401, 404, 410, 499]) assert.equal(verdict(s, 1, 16), 'dead');
  for (const s of [500, 502, 503, 504, 301, 302, 100, null]) {
    assert.equal(verdict(s, 1, 16), 'retry');
    assert.equal(verdict(s, 15, 16), 'retry');
    assert.equal(verdict(s, 16, 16), 'dead');
  }
  // A 2xx on the last attempt is still delivered.
  assert.equal(verdict(200, 16, 16), 'delivered');
});
