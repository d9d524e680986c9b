import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/domain/errors.js';
import { parseCreatePayment, parseJsonObject } from '../../src/domain/paymentRequest.js';

const VALID = {
  external_user_id: 'user-1',
  email: 'buyer@example.com',
  amount_minor: 15000,
  currency: 'IDR',
  method: 'qris',
  return_url: 'https://shop.example.com/return',
};

function bad(body: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ApiError, 'an ApiError');
    assert.equal(err.status, 400);
    assert.equal(err.body, body);
    return true;
  };
}

const REQUIRED = ['external_user_id', 'amount_minor', 'currency', 'method', 'return_url'];

test('a valid request parses to the typed request', () => {
  assert.deepEqual(
    parseCreatePayment({ ...VALID, metadata: { order: 7 }, invoice_prefix: 'INV' }),
    {
      externalUserId: 'user-1',
      email: 'buyer@example.com',
      amountMinor: 15000,
      currency: 'IDR',
      method: 'qris',
      returnUrl: 'https://shop.example.com/return',
      metadata: { order: 7 },
      invoicePrefix: 'INV',
    },
  );
});

test('optional fields default: no email, empty metadata, no prefix', () => {
  const noEmail: Record<string, unknown> = { ...VALID };
  delete noEmail.email;
  const parsed = parseCreatePayment(noEmail);
  assert.equal(parsed.email, null);
  assert.deepEqual(parsed.metadata, {});
  assert.equal(parsed.invoicePrefix, null);
  assert.equal(parseCreatePayment({ ...VALID, email: '' }).email, null);
  assert.equal(parseCreatePayment({ ...VALID, metadata: null }).metadata.constructor, Object);
  assert.equal(parseCreatePayment({ ...VALID, invoice_prefix: null }).invoicePrefix, null);
});

test('missing required fields are listed in the documented order (absent, null, empty)', () => {
  // Every subset of the five required fields, each missing in all three ways.
  for (let mask = 1; mask < 1 << REQUIRED.length; mask++) {
    const missing = REQUIRED.filter((_, i) => mask & (1 << i));
    for (const how of ['absent', 'null', 'empty'] as const) {
      const body: Record<string, unknown> = { ...VALID };
      for (const f of missing) {
        if (how === 'absent') delete body[f];
        else body[f] = how === 'null' ? null : '';
      }
      assert.throws(
        () => parseCreatePayment(body),
        bad(`missing required fields: ${missing.join(', ')}`),
        `${how}: ${missing.join(',')}`,
      );
    }
  }
});

test('amount_minor must be a positive safe integer', () => {
  for (const amount of [0, -1, -100, 1.5, '100', 2 ** 53, 1e300, true, [], {}]) {
    assert.throws(
      () => parseCreatePayment({ ...VALID, amount_minor: amount }),
      bad('amount_minor must be a positive integer'),
      JSON.stringify(amount),
    );
  }
  assert.equal(parseCreatePayment({ ...VALID, amount_minor: 1 }).amountMinor, 1);
  assert.equal(
    parseCreatePayment({ ...VALID, amount_minor: 2 ** 53 - 1 }).amountMinor,
    Number.MAX_SAFE_INTEGER,
  );
});

test('return_url must be an absolute http(s) URL', () => {
  for (const url of [
    '/return',
    'shop.example.com/return',
    'ftp://shop.example.com/',
    'javascript:alert(1)',
    'mailto:a@b.c',
    'http://',
    'not a url',
  ]) {
    assert.throws(
      () => parseCreatePayment({ ...VALID, return_url: url }),
      bad('return_url must be an absolute http(s) URL'),
      url,
    );
  }
  assert.equal(
    parseCreatePayment({ ...VALID, return_url: 'http://localhost:3000/x?y=1' }).returnUrl,
    'http://localhost:3000/x?y=1',
  );
});

test('metadata must be a JSON object', () => {
  for (const metadata of [[], 'x', 1, true, [1, 2]]) {
    assert.throws(
      () => parseCreatePayment({ ...VALID, metadata }),
      bad('metadata must be a JSON object'),
      JSON.stringify(metadata),
    );
  }
});

test('invoice_prefix must match the pattern', () => {
  for (const prefix of ['inv', 'ABCDEFGHIJKLM', '1INV', '', 'IN V', 5, ['INV']]) {
    assert.throws(
      () => parseCreatePayment({ ...VALID, invoice_prefix: prefix }),
      bad('invoice_prefix must match ^[A-Z][A-Z0-9-]{0,11}$'),
      JSON.stringify(prefix),
    );
  }
  assert.equal(
    parseCreatePayment({ ...VALID, invoice_prefix: 'ABCDEFGHIJKL' }).invoicePrefix,
    'ABCDEFGHIJKL',
  );
});

test('fields of the wrong type get a plain reason', () => {
  assert.throws(
    () => parseCreatePayment({ ...VALID, external_user_id: 42 }),
    bad('external_user_id must be a string'),
  );
  assert.throws(
    () => parseCreatePayment({ ...VALID, currency: ['IDR'] }),
    bad('currency must be a string'),
  );
  assert.throws(() => parseCreatePayment({ ...VALID, method: 1 }), bad('method must be a string'));
  assert.throws(() => parseCreatePayment({ ...VALID, email: 5 }), bad('email must be a string'));
  assert.throws(
    () => parseCreatePayment({ ...VALID, email: 'not-an-email' }),
    bad('email must be an email address'),
  );
  assert.throws(
    () => parseCreatePayment({ ...VALID, external_user_id: 'x'.repeat(256) }),
    bad('external_user_id must be at most 255 characters'),
  );
});

test('parseJsonObject: invalid JSON and non-objects', () => {
  for (const raw of ['', '{', 'nope', '{"a":1,}', "{'a':1}"]) {
    assert.throws(() => parseJsonObject(Buffer.from(raw)), bad('invalid JSON body'), raw);
  }
  for (const raw of ['[]', '1', '"x"', 'null', 'true']) {
    assert.throws(() => parseJsonObject(Buffer.from(raw)), bad('body must be a JSON object'), raw);
  }
  assert.deepEqual(parseJsonObject(Buffer.from('{"a":1}')), { a: 1 });
});
