import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { WebhookSender } from '../../../src/delivery/sender.js';
import { selfSignedCertificate } from '../../helpers/drivers/wallet_psp.js';
import { TestNetwork } from '../../helpers/network.js';
import { Receiver } from '../../helpers/receiver.js';

// The webhook sender over real sockets. Every socket goes to a receiver on 127.0.0.1: the
// test network resolves names from its table and, once the sender's own address check has
// passed, points the socket at loopback (helpers/network.ts).

let receiver: Receiver;
let network: TestNetwork;
let sender: WebhookSender;

before(async () => {
  receiver = new Receiver();
  await receiver.start();
});
after(() => receiver.stop());
beforeEach(() => {
  sender?.close();
  network = new TestNetwork();
  sender = new WebhookSender(network);
  receiver.received.length = 0;
});
after(() => sender.close());

const url = (host: string) => `http://${host}:${receiver.port}/hook`;
const post = (target: string, publicOnly: boolean) =>
  sender.post(target, { 'content-type': 'application/json' }, '{"n":1}', 2000, publicOnly);

test('public names and literals of both families are delivered after the check', async () => {
  network.set('shop.example.com', '93.184.216.34');
  network.set('v6.example.com', '2606:2800:220:1:248:1893:25c8:1946');
  network.set('both.example.com', '2606:4700:4700::1111', '1.1.1.1');
  const targets = [
    url('shop.example.com'),
    url('shop.example.com.'),
    url('v6.example.com'),
    url('both.example.com'),
    url('93.184.216.34'),
    url('[2606:4700:4700::1001]'),
    url('[::ffff:8.8.4.4]'),
  ];
  for (const target of targets) {
    const res = await post(target, true);
    assert.equal(res.error, null, target);
    assert.equal(res.statusCode, 200, target);
  }
  assert.equal(receiver.received.length, targets.length);
  // Each socket was offered exactly the checked addresses (the loopback redirect comes after).
  assert.deepEqual(network.dialed, [
    '93.184.216.34',
    '93.184.216.34',
    '2606:2800:220:1:248:1893:25c8:1946',
    '2606:4700:4700::1111',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700:4700::1001',
    '::ffff:808:404', // as the URL parser writes it
  ]);
});

test('a live delivery is refused at connect time when a name resolves to any private address', async () => {
  network.set('intranet.example.com', '10.0.0.8');
  network.set('mixed.example.com', '93.184.216.34', '192.168.1.20');
  network.set('v6-internal.example.com', 'fd00::5');
  network.set('mapped.example.com', '2606:4700:4700::1111', '::ffff:127.0.0.1');
  network.set('nat64.example.com', '64:ff9b::a9fe:a9fe');
  const cases: [string, string][] = [
    ['intranet.example.com', 'webhook_url resolves to a private address (10.0.0.8)'],
    ['mixed.example.com', 'webhook_url resolves to a private address (192.168.1.20)'],
    ['v6-internal.example.com', 'webhook_url resolves to a private address (fd00::5)'],
    ['mapped.example.com', 'webhook_url resolves to a private address (::ffff:127.0.0.1)'],
    ['nat64.example.com', 'webhook_url resolves to a private address (64:ff9b::a9fe:a9fe)'],
  ];
  for (const [host, error] of cases) {
    const res = await post(url(host), true);
    assert.deepEqual([res.statusCode, res.error], [null, error], host);
  }
  assert.equal(receiver.received.length, 0);
  assert.deepEqual(network.dialed, []);
});

test('a live delivery to a private literal or a localhost name is refused without resolving', async () => {
  const resolved: string[] = [];
  const resolve = network.resolve;
  network.resolve = (host) => {
    resolved.push(host);
    return resolve(host);
  };
  for (const host of [
    '127.0.0.1',
    '10.1.2.3',
    '[::1]',
    '[fe80::1]',
    '[::127.0.0.1]',
    '[::ffff:0:7f00:1]',
    '[64:ff9b::7f00:1]',
    '[2002:7f00:1::]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    'localhost',
    'localhost.',
    'api.localhost.',
  ]) {
    const res = await post(url(host), true);
    assert.deepEqual(
      [res.statusCode, res.error],
      [null, 'webhook_url is not a public address'],
      host,
    );
  }
  assert.deepEqual(resolved, []);
  assert.equal(receiver.received.length, 0);
});

test('test-mode deliveries may go to loopback and private addresses', async () => {
  network.set('intranet.example.com', '10.0.0.8');
  for (const host of ['127.0.0.1', 'localhost', 'intranet.example.com']) {
    const res = await post(url(host), false);
    assert.deepEqual([res.statusCode, res.error], [200, null], host);
  }
  assert.equal(receiver.received.length, 3);
});

test('a name that does not resolve is an attempt error, not a crash', async () => {
  const res = await post(url('nowhere.example.com'), true);
  assert.deepEqual(
    [res.statusCode, res.error],
    [null, 'getaddrinfo ENOTFOUND nowhere.example.com'],
  );
});

test('a socket a test-mode delivery kept alive is never reused by a live delivery', async () => {
  network.set('shop.example.com', '10.0.0.8');
  const first = await post(url('shop.example.com'), false);
  assert.deepEqual([first.statusCode, first.error], [200, null]);
  // Same host and port: a shared agent would hand the live delivery the kept-alive socket.
  const live = await post(url('shop.example.com'), true);
  assert.deepEqual(
    [live.statusCode, live.error],
    [null, 'webhook_url resolves to a private address (10.0.0.8)'],
  );
  assert.equal(receiver.received.length, 1);
  // Within one kind, kept-alive sockets are reused as before: no new connection is opened.
  const again = await post(url('shop.example.com'), false);
  assert.deepEqual([again.statusCode, again.error], [200, null]);
  assert.deepEqual(network.dialed, ['10.0.0.8']);
});

test('a socket a live delivery kept alive is not handed to a test-mode delivery either', async () => {
  network.set('shop.example.com', '93.184.216.34');
  assert.equal((await post(url('shop.example.com'), true)).statusCode, 200);
  assert.equal((await post(url('shop.example.com'), false)).statusCode, 200);
  // Two connections, each checked and dialed by its own agent.
  assert.deepEqual(network.dialed, ['93.184.216.34', '93.184.216.34']);
});

test('https: the TLS handshake goes to the checked address with the name as SNI', async () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = selfSignedCertificate({
    publicKey,
    privateKey,
    commonName: 'shop.example.com',
    organization: 'Paygate tests',
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 86_400_000),
  });
  const names: string[] = [];
  const server = https.createServer({
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    cert,
    SNICallback: (name, done) => {
      names.push(name);
      done(null);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    network.set('shop.example.com', '93.184.216.34');
    network.set('intranet.example.com', '10.0.0.8');
    const res = await post(`https://shop.example.com:${port}/hook`, true);
    // The sender trusts only real certificate authorities: a self-signed one stops it here.
    assert.deepEqual([res.statusCode, res.error], [null, 'self-signed certificate']);
    assert.deepEqual(names, ['shop.example.com']);
    assert.deepEqual(network.dialed, ['93.184.216.34']);
    const refused = await post(`https://intranet.example.com:${port}/hook`, true);
    assert.deepEqual(
      [refused.statusCode, refused.error],
      [null, 'webhook_url resolves to a private address (10.0.0.8)'],
    );
    assert.deepEqual(names, ['shop.example.com']);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('an answer cut after its status keeps the status; a timeout inside it records none', async () => {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => {
      if (req.url === '/cut') {
        res.writeHead(201, { 'content-length': '100' }).write('abc');
        setTimeout(() => req.socket.destroy(), 20);
      } else if (req.url === '/stall') {
        res.writeHead(200).write('part');
      } else if (req.url === '/hangup') {
        req.socket.destroy();
      } else {
        res.writeHead(302, { location: '/elsewhere' }).end('moved');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const send = (path: string) =>
      sender.post(`${base}${path}`, { 'x-pay-event-id': 'evt_1' }, '{"a":"é"}', 300, false);
    const cut = await send('/cut');
    assert.deepEqual([cut.statusCode, cut.error, cut.responseBody], [201, null, 'abc']);
    const stalled = await send('/stall');
    assert.deepEqual(
      [stalled.statusCode, stalled.error, stalled.responseBody],
      [null, 'timeout after 300 ms', null],
    );
    const hungUp = await send('/hangup');
    assert.equal(hungUp.statusCode, null);
    assert.notEqual(hungUp.error, null);
    // A redirect is an answer like any other: recorded, never followed.
    const moved = await send('/moved');
    assert.deepEqual([moved.statusCode, moved.error, moved.responseBody], [302, null, 'moved']);
    assert.equal(seen.length, 4);
    assert.equal(seen[3]?.['content-length'], '10');
    assert.equal(seen[3]?.['x-pay-event-id'], 'evt_1');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
