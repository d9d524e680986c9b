import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/domain/errors.js';
import { IDR_METHODS, PROVIDER_METHODS, routePayment } from '../../src/domain/routing.js';
import { PROVIDERS } from '../../src/domain/types.js';

const ALL = {
  allowedProviders: [...PROVIDERS],
  allowedMethods: Object.fromEntries(PROVIDERS.map((p) => [p, [...PROVIDER_METHODS[p]]])),
};

function apiError(status: number, body: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ApiError, 'an ApiError');
    assert.equal(err.status, status);
    assert.equal(err.body, body);
    return true;
  };
}

test('the default table (docs/api.md#routing): every IDR rail goes to idr_psp', () => {
  assert.deepEqual(
    [...IDR_METHODS],
    ['qris', 'va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata'],
  );
  for (const m of IDR_METHODS) assert.equal(routePayment('IDR', m, ALL), 'idr_psp');
});

test('the default table (docs/api.md#routing): card_psp and wallet_psp for USD, EUR and GBP', () => {
  for (const c of ['USD', 'EUR', 'GBP']) {
    assert.equal(routePayment(c, 'card_psp', ALL), 'card_psp');
    assert.equal(routePayment(c, 'wallet_psp', ALL), 'wallet_psp');
  }
});

test('every method a provider supports is its default allowed method list', () => {
  assert.deepEqual(PROVIDER_METHODS, {
    idr_psp: ['qris', 'va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata'],
    card_psp: ['card_psp'],
    wallet_psp: ['wallet_psp'],
  });
});

test('pairs not in the table: 422 no provider supports', () => {
  const cases: [string, string][] = [
    ['USD', 'qris'],
    ['IDR', 'card_psp'],
    ['IDR', 'wallet_psp'],
    ['EUR', 'va_bca'],
    ['idr', 'qris'],
    ['usd', 'card_psp'],
    ['JPY', 'card_psp'],
    ['IDR', 'QRIS'],
    ['IDR', 'bitcoin'],
    ['', ''],
  ];
  for (const [c, m] of cases) {
    assert.throws(
      () => routePayment(c, m, ALL),
      apiError(422, `no provider supports method=${m} for currency=${c}`),
    );
  }
});

test('a candidate that is not in allowed_providers: 422 not allowed for this app', () => {
  const policy = { allowedProviders: ['card_psp'], allowedMethods: ALL.allowedMethods };
  assert.throws(
    () => routePayment('IDR', 'qris', policy),
    apiError(422, 'provider idr_psp not allowed for this app'),
  );
  assert.throws(
    () => routePayment('GBP', 'wallet_psp', policy),
    apiError(422, 'provider wallet_psp not allowed for this app'),
  );
  assert.equal(routePayment('GBP', 'card_psp', policy), 'card_psp');
});

test('a method missing from the provider allowed_methods: 422 not enabled', () => {
  const policy = {
    allowedProviders: [...PROVIDERS],
    allowedMethods: { idr_psp: ['va_bca'], card_psp: [] },
  };
  assert.throws(
    () => routePayment('IDR', 'qris', policy),
    apiError(422, 'method qris not enabled for provider idr_psp on this app'),
  );
  assert.equal(routePayment('IDR', 'va_bca', policy), 'idr_psp');
  assert.throws(
    () => routePayment('USD', 'card_psp', policy),
    apiError(422, 'method card_psp not enabled for provider card_psp on this app'),
  );
  // A provider absent from allowed_methods has no enabled method at all.
  assert.throws(
    () => routePayment('USD', 'wallet_psp', policy),
    apiError(422, 'method wallet_psp not enabled for provider wallet_psp on this app'),
  );
});

test('routing is checked before the app policy: an unknown pair wins over not allowed', () => {
  const policy = { allowedProviders: [], allowedMethods: {} };
  assert.throws(
    () => routePayment('USD', 'qris', policy),
    apiError(422, 'no provider supports method=qris for currency=USD'),
  );
});
