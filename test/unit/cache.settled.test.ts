import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paymentIdKey, SettledPaymentCache } from '../../src/cache.js';

// Issue 28: the settled-payments cache is bounded by bytes, whatever its bodies weigh.
// Issue 29: its bodies live in one ring buffer of the budget's size, outside V8's heap; an
// entry costs its body and app id as UTF-8 plus a 25-byte header.

const id = (n: number) => n.toString(16).padStart(32, '0');
/** An entry's bytes in the ring: header, app id, body. */
const cost = (app: string, body: string) => 25 + Buffer.byteLength(app) + Buffer.byteLength(body);

/** A body of exactly `bytes` UTF-8 bytes for app_a's entry of `size` bytes. */
const sized = (n: number, size: number) => {
  const head = `{"n":${n},"pad":"`;
  return head + 'p'.repeat(size - cost('app_a', head) - 2) + '"}';
};

function present(cache: SettledPaymentCache, ns: number[], body: (n: number) => string): number[] {
  return ns.filter((n) => {
    const hit = cache.get(id(n), 'app_a');
    if (hit !== undefined) assert.equal(hit, body(n), `entry ${n} byte-exact`);
    return hit !== undefined;
  });
}

test('the cache keeps the newest entries within its byte budget and evicts the oldest', () => {
  const cache = new SettledPaymentCache(10_000);
  const body = (n: number) => JSON.stringify({ payment_id: id(n), metadata: 'm'.repeat(500) });
  for (let n = 0; n < 100; n++) cache.set(id(n), 'app_a', body(n));
  assert.ok(cache.size <= 10_000, `charged ${cache.size} bytes`);
  assert.ok(cache.size > 10_000 - 1000, 'fills the budget');
  assert.equal(cache.get(id(99), 'app_a'), body(99));
  assert.equal(cache.get(id(0), 'app_a'), undefined);
  const kept = present(
    cache,
    Array.from({ length: 100 }, (_, n) => n),
    body,
  );
  // Entries of one size tile the ring: as many as fit in 10,000 bytes, the newest.
  assert.deepEqual(
    kept,
    Array.from({ length: kept.length }, (_, i) => 100 - kept.length + i),
  );
  assert.equal(kept.length, Math.floor(10_000 / cost('app_a', body(0))));
  assert.equal(cache.size, kept.length * cost('app_a', body(0)));
});

test('wrapping overwrites the oldest entries: those are misses, the rest byte-exact', () => {
  const cache = new SettledPaymentCache(1_000);
  const body = (n: number) => sized(n, 300);
  assert.equal(cost('app_a', body(7)), 300);
  const all = [0, 1, 2, 3, 4, 5, 6];
  // Three entries of 300 bytes fill [0, 900); the fourth does not fit the last 100 bytes and
  // goes to the start, over the first.
  for (const n of [0, 1, 2]) cache.set(id(n), 'app_a', body(n));
  assert.deepEqual(present(cache, all, body), [0, 1, 2]);
  cache.set(id(3), 'app_a', body(3));
  assert.deepEqual(present(cache, all, body), [1, 2, 3]);
  assert.equal(cache.size, 900);
  cache.set(id(4), 'app_a', body(4));
  assert.deepEqual(present(cache, all, body), [2, 3, 4]);
  // The third write after the wrap reaches the old end (900) and frees the 100 bytes past it.
  cache.set(id(5), 'app_a', body(5));
  assert.deepEqual(present(cache, all, body), [3, 4, 5]);
  // A large entry overwrites as many as it needs, and only those.
  const big = 'b'.repeat(1_000 - cost('app_a', '') - 350);
  cache.set(id(6), 'app_a', big);
  assert.equal(cache.get(id(6), 'app_a'), big);
  assert.deepEqual(
    present(cache, [0, 1, 2, 3, 4, 5], body),
    [],
    'a 650-byte entry after [0, 900) wraps and needs 650 bytes from the start',
  );
  assert.equal(cache.size, 650);
  cache.set(id(7), 'app_a', body(7));
  assert.equal(cache.get(id(6), 'app_a'), big);
  assert.equal(cache.get(id(7), 'app_a'), body(7));
  assert.equal(cache.size, 950);
});

test('against a model: every hit is the last body stored for the id, and the kept ones are the newest', () => {
  const cache = new SettledPaymentCache(20_000);
  const last = new Map<number, string>();
  const order: number[] = [];
  let seed = 1;
  const rand = (k: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % k;
  };
  for (let step = 0; step < 3_000; step++) {
    const n = rand(400);
    const body = JSON.stringify({ n, step, pad: 'é東x'.repeat(rand(120)) });
    cache.set(id(n), 'app_a', body);
    last.set(n, body);
    if (order.includes(n)) order.splice(order.indexOf(n), 1);
    order.push(n);
    assert.equal(cache.get(id(n), 'app_a'), body, 'the newest entry is always a hit');
    let live = 0;
    let missing = false;
    // Newest first: once one is missing, every older one is too (first in, first out).
    for (let i = order.length - 1; i >= 0; i--) {
      const m = order[i] as number;
      const hit = cache.get(id(m), 'app_a');
      if (hit === undefined) {
        missing = true;
        continue;
      }
      assert.ok(!missing, `entry ${m} kept while a newer one was overwritten`);
      assert.equal(hit, last.get(m));
      live += cost('app_a', hit);
    }
    assert.equal(cache.size, live);
    assert.ok(cache.size <= 20_000);
  }
});

test('storing an id again replaces its entry; overwriting the old copy leaves the new one', () => {
  const cache = new SettledPaymentCache(1_000);
  const body = (n: number) => sized(n, 200);
  cache.set(id(1), 'app_a', body(1));
  cache.set(id(2), 'app_a', body(2));
  cache.set(id(1), 'app_a', body(3));
  assert.equal(cache.get(id(1), 'app_a'), body(3));
  assert.equal(cache.get(id(2), 'app_a'), body(2));
  assert.equal(cache.size, 400);
  // Two more fill the ring: [old 1, 2, new 1, 4, 5]; the sixth overwrites the old copy of 1.
  cache.set(id(4), 'app_a', body(4));
  cache.set(id(5), 'app_a', body(5));
  cache.set(id(6), 'app_a', body(6));
  assert.equal(cache.get(id(1), 'app_a'), body(3));
  assert.equal(cache.size, 1_000);
  // The seventh overwrites 2, the eighth the new copy of 1.
  cache.set(id(7), 'app_a', body(7));
  assert.equal(cache.get(id(2), 'app_a'), undefined);
  assert.equal(cache.get(id(1), 'app_a'), body(3));
  cache.set(id(8), 'app_a', body(8));
  assert.equal(cache.get(id(1), 'app_a'), undefined);
  assert.deepEqual(present(cache, [4, 5, 6, 7, 8], body), [4, 5, 6, 7, 8]);
  assert.equal(cache.size, 1_000);
});

test('another app never reads an entry, whatever its id looks like', () => {
  const cache = new SettledPaymentCache(10_000);
  cache.set(id(1), 'app_a', '{"a":1}');
  assert.equal(cache.get(id(1), 'app_a'), '{"a":1}');
  for (const other of ['app_b', 'app_', 'app_aa', 'APP_A', '', 'app_a\u0000'.repeat(60)]) {
    assert.equal(cache.get(id(1), other), undefined, `read as ${JSON.stringify(other)}`);
  }
  assert.equal(cache.get(id(2), 'app_a'), undefined);
  // A payment id is one app's: storing it for another replaces the entry.
  cache.set(id(1), 'app_b', '{"b":1}');
  assert.equal(cache.get(id(1), 'app_a'), undefined);
  assert.equal(cache.get(id(1), 'app_b'), '{"b":1}');
  // Only payment ids and app ids of at most 255 bytes are cached.
  cache.set(id(0xabc).toUpperCase(), 'app_a', '{}');
  assert.equal(cache.get(id(0xabc).toUpperCase(), 'app_a'), undefined);
  cache.set(id(4), 'a'.repeat(256), '{}');
  assert.equal(cache.get(id(4), 'a'.repeat(256)), undefined);
  cache.set(id(5), 'é'.repeat(127), '{}');
  assert.equal(cache.get(id(5), 'é'.repeat(127)), '{}');
  assert.equal(cache.get(id(5), 'é'.repeat(126)), undefined);
  cache.set(id(6), 'é'.repeat(128), '{}');
  assert.equal(cache.get(id(6), 'é'.repeat(128)), undefined);
});

test('ids with the same index key displace each other and never read each other', () => {
  const cache = new SettledPaymentCache(10_000);
  const seen = new Map<number, string>();
  let pair: [string, string] | undefined;
  for (let n = 0; !pair; n++) {
    const candidate = ((n * 2654435761) % 2 ** 32).toString(16).padStart(32, 'f');
    const key = paymentIdKey(candidate);
    const other = seen.get(key);
    if (other !== undefined && other !== candidate) pair = [other, candidate];
    seen.set(key, candidate);
  }
  const [a, b] = pair;
  cache.set(a, 'app_a', '"a"');
  cache.set(b, 'app_a', '"b"');
  assert.equal(cache.get(b, 'app_a'), '"b"');
  assert.equal(cache.get(a, 'app_a'), undefined);
  assert.equal(cache.size, cost('app_a', '"b"'));
});

test('a body larger than the whole budget is not cached', () => {
  const cache = new SettledPaymentCache(1_000);
  cache.set(id(1), 'app_a', 'z'.repeat(2_000));
  assert.equal(cache.get(id(1), 'app_a'), undefined);
  assert.equal(cache.size, 0);
  // One that fills the ring exactly is, until the next entry.
  const whole = 'w'.repeat(1_000 - cost('app_a', ''));
  cache.set(id(2), 'app_a', whole);
  assert.equal(cache.get(id(2), 'app_a'), whole);
  assert.equal(cache.size, 1_000);
  // Too large for the budget: the entry of the id stays as it was.
  cache.set(id(2), 'app_a', 'z'.repeat(1_000));
  assert.equal(cache.get(id(2), 'app_a'), whole);
  cache.set(id(3), 'app_a', 'x');
  assert.equal(cache.get(id(2), 'app_a'), undefined);
  assert.equal(cache.get(id(3), 'app_a'), 'x');
  assert.equal(cache.size, cost('app_a', 'x'));
});

test('bodies beyond ASCII come back byte-exact and are charged their UTF-8 bytes', () => {
  const cache = new SettledPaymentCache(1_000_000);
  const bodies = [
    JSON.stringify({ metadata: { name: 'Désirée Ñúñez' } }),
    JSON.stringify({ metadata: { city: '東京', note: 'お支払い' } }),
    JSON.stringify({ metadata: { emoji: '💳✅🇮🇩', zwj: '👩‍💻' } }),
    JSON.stringify({ metadata: { mixed: 'a\u0000b\u007f\u0080\u07ff\u0800\uffff' } }),
    '',
  ];
  let charged = 0;
  bodies.forEach((body, n) => {
    cache.set(id(n), 'app_a', body);
    charged += cost('app_a', body);
  });
  bodies.forEach((body, n) => {
    const hit = cache.get(id(n), 'app_a');
    assert.equal(hit, body);
    assert.deepEqual(Buffer.from(hit as string), Buffer.from(body));
  });
  assert.equal(cache.size, charged);
  assert.equal(cost('app_a', '東'.repeat(100)), 25 + 5 + 300);
});
