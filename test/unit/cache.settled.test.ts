import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SettledPaymentCache } from '../../src/cache.js';

// Issue 28: the settled-payments cache is bounded by bytes, whatever its bodies weigh.

const id = (n: number) => n.toString(16).padStart(32, '0');

test('the cache keeps the newest entries within its byte budget and evicts the oldest', () => {
  const cache = new SettledPaymentCache(10_000);
  const body = (n: number) => JSON.stringify({ payment_id: id(n), metadata: 'm'.repeat(500) });
  for (let n = 0; n < 100; n++) cache.set(id(n), 'app_a', body(n));
  assert.ok(cache.size <= 10_000, `charged ${cache.size} bytes`);
  assert.ok(cache.size > 10_000 - 1000, 'fills the budget');
  assert.equal(cache.get(id(99), 'app_a'), body(99));
  assert.equal(cache.get(id(0), 'app_a'), undefined);
  const kept = Array.from({ length: 100 }, (_, n) => n).filter((n) => cache.get(id(n), 'app_a'));
  // Each entry is charged its body, its id and the overhead: 12 fit in 10,000 bytes.
  assert.deepEqual(
    kept,
    Array.from({ length: kept.length }, (_, i) => 100 - kept.length + i),
  );
  assert.equal(kept.length, Math.floor(10_000 / (128 + 32 + body(0).length)));
});

test('a large body displaces as many small ones as it needs, and another app never reads it', () => {
  const cache = new SettledPaymentCache(4_000);
  for (let n = 0; n < 10; n++) cache.set(id(n), 'app_a', 'x'.repeat(100));
  cache.set(id(50), 'app_b', 'y'.repeat(3_000));
  assert.ok(cache.size <= 4_000);
  assert.equal(cache.get(id(50), 'app_b'), 'y'.repeat(3_000));
  assert.equal(cache.get(id(50), 'app_a'), undefined);
  assert.equal(cache.get(id(0), 'app_a'), undefined);
  assert.equal(cache.get(id(9), 'app_a'), 'x'.repeat(100));
});

test('a body of other than Latin-1 characters is charged two bytes a character', () => {
  const cache = new SettledPaymentCache(1_000_000);
  cache.set(id(1), 'app_a', 'é'.repeat(100));
  assert.equal(cache.size, 128 + 32 + 100);
  cache.set(id(2), 'app_a', '東'.repeat(100));
  assert.equal(cache.size, 128 + 32 + 100 + 128 + 32 + 200);
  // Storing an id again replaces its entry and its charge.
  cache.set(id(2), 'app_a', 'a');
  assert.equal(cache.size, 128 + 32 + 100 + 128 + 32 + 1);
});

test('a body larger than the whole budget is not cached', () => {
  const cache = new SettledPaymentCache(1_000);
  cache.set(id(1), 'app_a', 'z'.repeat(2_000));
  assert.equal(cache.get(id(1), 'app_a'), undefined);
  assert.equal(cache.size, 0);
});
