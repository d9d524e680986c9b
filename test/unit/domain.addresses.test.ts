import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPublicAddress, judgeHost, normalizeHost } from '../../src/domain/addresses.js';

function assertAll(addresses: string[], expected: boolean): void {
  for (const ip of addresses) {
    assert.equal(isPublicAddress(ip), expected, `${ip} ${expected ? 'public' : 'private'}`);
  }
}

test('public IPv4 addresses are public (every IPv4 address used to count as private)', () => {
  assertAll(
    [
      '93.184.216.34',
      '8.8.8.8',
      '1.1.1.1',
      '1.0.0.0',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.0.1.1',
      '192.0.3.1',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '198.51.99.255',
      '198.51.101.0',
      '203.0.112.255',
      '203.0.114.0',
      '223.255.255.255',
    ],
    true,
  );
});

test('special-purpose IPv4 ranges are private, edges included', () => {
  assertAll(
    [
      '0.0.0.0',
      '0.255.255.255',
      '10.0.0.0',
      '10.255.255.255',
      '100.64.0.0',
      '100.127.255.255',
      '127.0.0.1',
      '127.255.255.254',
      '169.254.0.0',
      '169.254.169.254',
      '172.16.0.0',
      '172.31.255.255',
      '192.0.0.0',
      '192.0.0.255',
      '192.0.2.1',
      '192.168.0.0',
      '192.168.255.255',
      '198.18.0.0',
      '198.19.255.255',
      '198.51.100.5',
      '203.0.113.9',
      '224.0.0.1',
      '239.255.255.255',
      '240.0.0.1',
      '255.255.255.254',
      '255.255.255.255',
    ],
    false,
  );
});

test('public IPv6 addresses are public', () => {
  assertAll(
    [
      '2606:2800:220:1:248:1893:25c8:1946',
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '2a00:1450:4001:82b::200e',
      '2001:db9::1',
    ],
    true,
  );
});

test('special-purpose IPv6 ranges are private, in every spelling', () => {
  assertAll(
    [
      '::',
      '::1',
      '0:0:0:0:0:0:0:1',
      '0000:0000:0000:0000:0000:0000:0000:0001',
      'fc00::1',
      'fd12:3456:789a::1',
      'FDFF:FFFF::1',
      'fe80::1',
      'fe80::1%eth0',
      'febf:ffff::1',
      'fec0::1',
      'feff::1',
      'ff02::1',
      'ff0e::1',
      '2001:db8::1',
      '2001:0db8:ffff::1',
      '100::1',
      '100::ffff:ffff:ffff:ffff',
    ],
    false,
  );
});

test('every IPv6 form that carries an IPv4 address is judged by that IPv4 address', () => {
  const forms: [string, string, string][] = [
    // form, carrying 127.0.0.1 / 10.0.0.1 / 192.168.1.1 ..., carrying 8.8.8.8
    ['IPv4-mapped dotted', '::ffff:127.0.0.1', '::ffff:8.8.8.8'],
    ['IPv4-mapped hex', '::ffff:7f00:1', '::ffff:808:808'],
    ['IPv4-mapped expanded', '0:0:0:0:0:ffff:a00:1', '0:0:0:0:0:FFFF:0808:0808'],
    ['IPv4-compatible dotted', '::127.0.0.1', '::8.8.8.8'],
    ['IPv4-compatible hex', '::7f00:1', '::808:808'],
    ['IPv4-translated', '::ffff:0:7f00:1', '::ffff:0:8.8.8.8'],
    ['IPv4-translated dotted', '::ffff:0:192.168.1.1', '::ffff:0:808:808'],
    ['NAT64 64:ff9b::/96', '64:ff9b::7f00:1', '64:ff9b::808:808'],
    ['NAT64 64:ff9b::/96 dotted', '64:ff9b::10.0.0.1', '64:ff9b::8.8.8.8'],
    ['NAT64 local-use 64:ff9b:1::/48', '64:ff9b:1::7f00:1', '64:ff9b:1:808:8:808:808:808'],
    ['6to4 2002::/16', '2002:7f00:1::', '2002:808:808::1'],
    ['6to4 other private', '2002:c0a8:101::1', '2002:808:808:1:2:3:4:5'],
    // Teredo: server 65.54.227.120, client stored inverted (127.0.0.1 -> 80ff:fffe).
    [
      'Teredo 2001::/32',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
    ],
    ['Teredo client 10.0.0.1', '2001:0:4136:e378::f5ff:fffe', '2001::f7f7:f7f7'],
  ];
  for (const [form, carriesPrivate, carriesPublic] of forms) {
    assert.equal(isPublicAddress(carriesPrivate), false, `${form}: ${carriesPrivate} is private`);
    assert.equal(isPublicAddress(carriesPublic), true, `${form}: ${carriesPublic} is public`);
  }
  // The IPv4-private addresses that are public addresses themselves (::ffff:0:0/96 once
  // matched every IPv4 address): unspecified and loopback stay private through their IPv4.
  assertAll(['::ffff:0.0.0.0', '::ffff:169.254.169.254', '64:ff9b::c000:201'], false);
});

test('the local-use NAT64 prefix counts every position an IPv4 address can sit in', () => {
  // Public at /96 (1.8.8.8), but under a /64 prefix the same address reaches 10.0.0.1.
  assert.equal(isPublicAddress('64:ff9b:1:0:a:0:108:808'), false);
});

test('anything that is not an IP address is not a public address', () => {
  assertAll(
    ['', 'example.com', '8.8.8', '2130706433', '::ffff:1.2.3', '[::1]', '1.2.3.4/8'],
    false,
  );
});

test('hosts: literals are judged, localhost names are private, other names need resolving', () => {
  for (const host of ['93.184.216.34', '[2606:4700:4700::1111]', '[::ffff:8.8.8.8]']) {
    assert.equal(judgeHost(host), 'public', host);
  }
  for (const host of [
    'localhost',
    'localhost.',
    'LOCALHOST',
    'api.localhost',
    'api.localhost.',
    'printer.local',
    'printer.local.',
    '127.0.0.1',
    '[::1]',
    '[::127.0.0.1]',
    '[::ffff:0:7f00:1]',
    '[64:ff9b::7f00:1]',
    '[2002:7f00:1::]',
    '',
  ]) {
    assert.equal(judgeHost(host), 'private', host);
  }
  for (const host of ['shop.example.com', 'shop.example.com.', 'localhost.example.com', 'local']) {
    assert.equal(judgeHost(host), 'name', host);
  }
  assert.equal(normalizeHost('[FE80::1]'), 'fe80::1');
  assert.equal(normalizeHost('Shop.Example.COM..'), 'shop.example.com');
});
