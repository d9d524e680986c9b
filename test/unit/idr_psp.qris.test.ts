import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ACQUIRER_GUI,
  crc16,
  QRIS_GUI,
  qrisPayload,
  withCrc,
} from '../../src/simulators/idr_psp/qris.js';
import { parseTlv } from '../helpers/emvQr.js';

test('crc16 is CRC-16/CCITT-FALSE: the catalogue check value of "123456789" is 29B1', () => {
  assert.equal(crc16('123456789'), '29B1');
});

// The merchant-presented example of the EMVCo QR Code Specification for Payment Systems
// (MPM) v1.0, section 4 / appendix, whose CRC is A13A; its lengths count characters while
// the CRC runs over the UTF-8 bytes (the Chinese merchant name in ID 64).
const EMVCO_MPM_EXAMPLE =
  '00020101021229300012D156000000000510A93FO3230Q31280012D15600000001030812345678' +
  '520441115802CN5914BEST TRANSPORT6007BEIJING64200002ZH0104最佳运输0202北京' +
  '540523.7253031565502016233030412340603***0708A60086670902ME91320016A0112233449988770708' +
  '123456786304A13A';

test('crc16 reproduces the EMVCo MPM specification example (A13A)', () => {
  const body = EMVCO_MPM_EXAMPLE.slice(0, -4);
  assert.equal(crc16(body), 'A13A');
  assert.equal(withCrc(body.slice(0, -4)), EMVCO_MPM_EXAMPLE);
});

test('qrisPayload: a dynamic QRIS with every mandatory data object, CRC last', () => {
  const s = qrisPayload({
    merchantPan: '9360091412345678901',
    merchantId: 'G123456789',
    amount: 125000,
    reference: '0123456789abcdef0123456789abcdef',
  });
  const top = parseTlv(s);
  assert.deepEqual(
    [...top.keys()],
    ['00', '01', '26', '51', '52', '53', '54', '58', '59', '60', '62', '63'],
  );
  assert.equal(top.get('00'), '01', 'payload format indicator');
  assert.equal(top.get('01'), '12', 'dynamic point of initiation');
  const acquirer = parseTlv(top.get('26') ?? '');
  assert.equal(acquirer.get('00'), ACQUIRER_GUI);
  assert.equal(acquirer.get('01'), '9360091412345678901');
  const qris = parseTlv(top.get('51') ?? '');
  assert.equal(qris.get('00'), QRIS_GUI);
  assert.equal(qris.get('02'), 'G123456789');
  assert.equal(top.get('52'), '5999', 'merchant category code');
  assert.equal(top.get('53'), '360', 'rupiah');
  assert.equal(top.get('54'), '125000', 'amount, no decimals for IDR');
  assert.equal(top.get('58'), 'ID');
  assert.equal(top.get('59'), 'PAYGATE TEST MERCHANT');
  assert.equal(top.get('60'), 'JAKARTA');
  assert.equal(parseTlv(top.get('62') ?? '').get('05'), '0123456789abcdef012345678');
  assert.ok(s.endsWith(`6304${top.get('63')}`));
  assert.equal(top.get('63'), crc16(s.slice(0, -4)));
});

test('qrisPayload refuses an amount EMV ID 54 cannot hold', () => {
  const base = { merchantPan: '9360091412345678901', merchantId: 'G1', reference: 'r' };
  assert.throws(() => qrisPayload({ ...base, amount: 0 }), /positive/);
  assert.throws(() => qrisPayload({ ...base, amount: 12_345_678_901_234 }), /13 digits/);
  assert.equal(
    parseTlv(qrisPayload({ ...base, amount: 9_999_999_999_999 })).get('54'),
    '9999999999999',
  );
});
