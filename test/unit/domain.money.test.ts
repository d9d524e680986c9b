import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CURRENCY_EXPONENT, decimalToMinor, minorToDecimal } from '../../src/domain/money.js';

test('one exponent table: IDR 0; USD, EUR, GBP 2', () => {
  assert.deepEqual(CURRENCY_EXPONENT, { IDR: 0, USD: 2, EUR: 2, GBP: 2 });
});

test('minor units to a provider decimal string', () => {
  assert.equal(minorToDecimal(15000, 'IDR'), '15000');
  assert.equal(minorToDecimal(1, 'IDR'), '1');
  assert.equal(minorToDecimal(1999, 'USD'), '19.99');
  assert.equal(minorToDecimal(100, 'EUR'), '1.00');
  assert.equal(minorToDecimal(5, 'GBP'), '0.05');
  assert.equal(minorToDecimal(50, 'USD'), '0.50');
  assert.equal(minorToDecimal(Number.MAX_SAFE_INTEGER, 'USD'), '90071992547409.91');
});

test('an unknown currency cannot be converted', () => {
  assert.throws(() => minorToDecimal(100, 'JPY'), /unknown currency JPY/);
  assert.throws(() => minorToDecimal(100, 'usd'), /unknown currency usd/);
});

test('a provider decimal back to minor units, exact values only', () => {
  assert.equal(decimalToMinor('19.99', 'USD'), 1999);
  assert.equal(decimalToMinor('19.9', 'USD'), 1990);
  assert.equal(decimalToMinor('19', 'USD'), 1900);
  assert.equal(decimalToMinor('0.05', 'GBP'), 5);
  assert.equal(decimalToMinor('1.000', 'EUR'), 100);
  assert.equal(decimalToMinor('15000', 'IDR'), 15000);
  assert.equal(decimalToMinor('15000.00', 'IDR'), 15000);
  assert.equal(decimalToMinor('15000.50', 'IDR'), null);
  assert.equal(decimalToMinor('19.999', 'USD'), null);
  assert.equal(decimalToMinor('-1.00', 'USD'), null);
  assert.equal(decimalToMinor('1e3', 'USD'), null);
  assert.equal(decimalToMinor('', 'USD'), null);
  assert.equal(decimalToMinor('1.00', 'JPY'), null);
  assert.equal(decimalToMinor('99999999999999999', 'USD'), null);
});

test('the two conversions are inverse for every exponent', () => {
  for (const currency of Object.keys(CURRENCY_EXPONENT)) {
    for (const minor of [1, 9, 10, 99, 100, 101, 123456789, Number.MAX_SAFE_INTEGER]) {
      assert.equal(decimalToMinor(minorToDecimal(minor, currency), currency), minor);
    }
  }
});
