import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  parseDays,
  parseListLimit,
  parseTimestamp,
  payoutWindow,
  reportWindow,
  resolveMode,
} from '../../src/domain/adminQuery.js';
import { ApiError } from '../../src/domain/errors.js';
import { exactJson } from '../../src/domain/exactJson.js';
import { splitWindow } from '../../src/services/rollup.js';

function bad(fn: () => unknown, body: string) {
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.status === 400 && e.body === body);
}

const NOW = new Date('2026-11-22T10:30:00.000Z');

describe('admin query parameters (docs/api.md#query-parameters)', () => {
  test('mode: a filter only for test, sandbox, live', () => {
    assert.equal(resolveMode('test'), 'test');
    assert.equal(resolveMode('sandbox'), 'sandbox');
    assert.equal(resolveMode('live'), 'live');
    for (const v of [undefined, '', 'LIVE', 'prod', ' test']) assert.equal(resolveMode(v), '');
  });

  test('days 1..366, default 30', () => {
    assert.equal(parseDays(undefined), 30);
    assert.equal(parseDays(''), 30);
    assert.equal(parseDays('1'), 1);
    assert.equal(parseDays('366'), 366);
    for (const v of ['0', '367', '-1', '1.0', '1e2', ' 5', 'x', '00000001']) {
      bad(() => parseDays(v), 'days must be an integer from 1 to 366');
    }
  });

  test('limit 1..1000, default 100', () => {
    assert.equal(parseListLimit(undefined), 100);
    assert.equal(parseListLimit('1000'), 1000);
    for (const v of ['0', '1001', 'ten', '-5']) {
      bad(() => parseListLimit(v), 'limit must be an integer from 1 to 1000');
    }
  });

  test('timestamps: RFC 3339 or a UTC date', () => {
    assert.equal(parseTimestamp('since', undefined), null);
    assert.equal(parseTimestamp('since', '2026-02-28')?.toISOString(), '2026-02-28T00:00:00.000Z');
    assert.equal(parseTimestamp('since', '2024-02-29')?.toISOString(), '2024-02-29T00:00:00.000Z');
    assert.equal(
      parseTimestamp('since', '2026-11-22T12:00:00+02:00')?.toISOString(),
      '2026-11-22T10:00:00.000Z',
    );
    assert.equal(
      parseTimestamp('since', '2026-11-22t10:00:00.123456z')?.toISOString(),
      '2026-11-22T10:00:00.123Z',
    );
    const msg = 'until must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)';
    for (const v of [
      '2026-02-29',
      '2026-13-01',
      '2026-11-22T24:00:00Z',
      '2026-11-22T10:00Z',
      '2026-11-22 10:00:00Z',
      '2026-11-22T10:00:00',
      '2026-11-22T10:00:00+25:00',
      '1969-12-31',
      'now',
      '1700000000',
    ]) {
      bad(() => parseTimestamp('until', v), msg);
    }
  });

  test('report window: days count back whole UTC days; since wins; until bounds', () => {
    assert.deepEqual(reportWindow({}, NOW), {
      since: new Date('2026-10-24T00:00:00.000Z'),
      until: NOW,
    });
    assert.deepEqual(reportWindow({ days: '1' }, NOW).since, new Date('2026-11-22T00:00:00Z'));
    assert.deepEqual(
      reportWindow({ days: '3', since: '2026-01-05' }, NOW).since,
      new Date('2026-01-05T00:00:00Z'),
    );
    assert.deepEqual(reportWindow({ days: '2', until: '2026-01-10T06:00:00Z' }, NOW), {
      since: new Date('2026-01-09T00:00:00Z'),
      until: new Date('2026-01-10T06:00:00Z'),
    });
    bad(() => reportWindow({ since: '2026-11-23' }, NOW), 'since must not be after until');
    assert.deepEqual(payoutWindow({}, NOW).since, new Date(NOW.getTime() - 30 * 86_400_000));
  });
});

describe('rollup split', () => {
  test('closed full days from the rollup, the rest from the rows', () => {
    const s = splitWindow({ since: new Date('2026-11-10T12:00:00Z'), until: NOW }, NOW);
    assert.deepEqual(s.days, {
      from: new Date('2026-11-11T00:00:00Z'),
      to: new Date('2026-11-22T00:00:00Z'),
    });
    assert.deepEqual(s.raw, [
      { since: new Date('2026-11-10T12:00:00Z'), until: new Date('2026-11-11T00:00:00Z') },
      { since: new Date('2026-11-22T00:00:00Z'), until: NOW },
    ]);
  });

  test('in the hour after midnight yesterday is not closed yet', () => {
    const now = new Date('2026-11-22T00:40:00Z');
    const s = splitWindow({ since: new Date('2026-11-20T00:00:00Z'), until: now }, now);
    assert.deepEqual(s.days, {
      from: new Date('2026-11-20T00:00:00Z'),
      to: new Date('2026-11-21T00:00:00Z'),
    });
    assert.deepEqual(s.raw, [{ since: new Date('2026-11-21T00:00:00Z'), until: now }]);
  });

  test('a window inside one day is all rows', () => {
    const w = { since: new Date('2026-11-20T01:00:00Z'), until: new Date('2026-11-20T23:00:00Z') };
    assert.deepEqual(splitWindow(w, NOW), { days: null, raw: [w] });
  });
});

describe('exact JSON', () => {
  test('every bigint is a JSON integer with its exact digits, whatever its size (D14)', () => {
    assert.equal(exactJson({ a: 5n, z: 0n, b: 'x', c: 3 }), '{"a":5,"z":0,"b":"x","c":3}');
    assert.equal(
      exactJson({ s: 12000000000000007n, n: -12000000000000007n, list: [9223372036854775817n] }),
      '{"s":12000000000000007,"n":-12000000000000007,"list":[9223372036854775817]}',
    );
  });

  test('a string that looks like a placeholder stays a string', () => {
    const out = exactJson({ name: ':12345', big: 12000000000000007n, n: '7' });
    assert.equal(out, '{"name":":12345","big":12000000000000007,"n":"7"}');
  });
});
