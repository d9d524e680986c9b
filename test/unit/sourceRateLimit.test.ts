import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SourceRateLimiter, sourceKey } from '../../src/services/sourceRateLimit.js';

test('a burst, then one token per refill interval; giveBack returns a token', () => {
  let now = 0;
  const l = new SourceRateLimiter(60, 3, () => now); // one token a second
  assert.deepEqual(
    [l.take('1.2.3.4'), l.take('1.2.3.4'), l.take('1.2.3.4')],
    ['taken', 'taken', 'taken'],
  );
  assert.equal(l.take('1.2.3.4'), 'newly_limited');
  assert.equal(l.take('1.2.3.4'), 'limited');
  assert.equal(l.retryAfterSeconds('1.2.3.4'), 1);
  assert.equal(l.take('5.6.7.8'), 'taken', 'another source has its own bucket');
  now += 1000;
  assert.equal(l.take('1.2.3.4'), 'taken');
  l.giveBack('1.2.3.4');
  assert.equal(l.take('1.2.3.4'), 'taken');
  assert.equal(l.take('1.2.3.4'), 'newly_limited');
});

test('Retry-After counts the seconds to the next token', () => {
  let now = 0;
  const l = new SourceRateLimiter(2, 1, () => now); // one token every 30 s
  l.take('a');
  assert.equal(l.retryAfterSeconds('a'), 30);
  now += 20_000;
  assert.equal(l.retryAfterSeconds('a'), 10);
});

test('source keys: IPv4 alone, IPv4-mapped as IPv4, IPv6 by its /64', () => {
  assert.equal(sourceKey('203.0.113.9'), '203.0.113.9');
  assert.equal(sourceKey('::ffff:203.0.113.9'), '203.0.113.9');
  assert.equal(sourceKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(sourceKey('2001:db8:1:2::9'), '2001:db8:1:2::/64');
  assert.equal(sourceKey('2001:0db8:0001:0002:ffff::1'), '2001:db8:1:2::/64');
  assert.equal(sourceKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(sourceKey('::1'), '0:0:0:0::/64');
});

test('check takes nothing; spend counts a failure; one run of refusals lasts until the bucket is full', () => {
  let now = 0;
  const l = new SourceRateLimiter(60, 2, () => now); // one token a second
  assert.equal(l.check('a'), 'open');
  l.spend('a');
  assert.equal(l.check('a'), 'open');
  l.spend('a');
  assert.deepEqual([l.check('a'), l.check('a')], ['newly_limited', 'limited']);
  now += 1000;
  assert.equal(l.check('a'), 'open');
  l.spend('a');
  assert.equal(l.check('a'), 'limited', 'refilled one token, spent it: the same run');
  now += 2000;
  assert.equal(l.check('a'), 'open');
  l.spend('a');
  l.spend('a');
  assert.equal(l.check('a'), 'newly_limited', 'full again in between: a new run');
});
