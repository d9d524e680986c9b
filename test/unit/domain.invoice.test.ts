import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatInvoiceNumber, INVOICE_PREFIX_PATTERN } from '../../src/domain/invoice.js';

test('invoice_number is <prefix>-<sequence zero-padded to 6 digits>', () => {
  assert.equal(formatInvoiceNumber('INV', 1), 'INV-000001');
  assert.equal(formatInvoiceNumber('INV', 42), 'INV-000042');
  assert.equal(formatInvoiceNumber('A-B', 123456), 'A-B-123456');
  assert.equal(formatInvoiceNumber('X', 999999), 'X-999999');
});

test('the sequence grows past 999999 to 7 digits and more, never wraps', () => {
  assert.equal(formatInvoiceNumber('INV', 1000000), 'INV-1000000');
  assert.equal(formatInvoiceNumber('INV', 12345678n), 'INV-12345678');
  assert.equal(formatInvoiceNumber('INV', '9000000000'), 'INV-9000000000');
});

test('the prefix pattern is exactly ^[A-Z][A-Z0-9-]{0,11}$', () => {
  assert.equal(INVOICE_PREFIX_PATTERN.source, '^[A-Z][A-Z0-9-]{0,11}$');
  for (const ok of ['A', 'INV', 'SHOP-2024', 'A-', 'Z9', 'ABCDEFGHIJKL', 'A-----------']) {
    assert.ok(INVOICE_PREFIX_PATTERN.test(ok), `${ok} is a valid prefix`);
  }
  for (const bad of [
    '',
    'inv',
    'Inv',
    '1INV',
    '-INV',
    'ABCDEFGHIJKLM',
    'IN V',
    'INV_1',
    'INVÉ',
    'INV\n',
  ]) {
    assert.ok(!INVOICE_PREFIX_PATTERN.test(bad), `${JSON.stringify(bad)} is not a valid prefix`);
  }
});
