import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../helpers/eventually.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { parseResponse, rawExchange, rawRequest, RawSocket } from '../../helpers/rawHttp.js';

// Clients that send malformed, slow, silent or too many requests: every answer is plain
// text on the wire (checked as raw bytes), and none of them holds a connection open.

const TEXT = 'text/plain; charset=utf-8';

function assertText(res: { status: number; headers: Record<string, string>; body: string } | null) {
  assert.ok(res, 'a complete response');
  assert.equal(res.headers['content-type'], TEXT);
  return res;
}

describe('malformed requests answer plain text', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw?.stop());

  const get = (path: string, extra = '') =>
    `GET ${path} HTTP/1.1\r\nHost: gw\r\n${extra}Connection: close\r\n\r\n`;

  test('a request line that is not HTTP: 400 bad request', async () => {
    const res = assertText(await rawRequest(gw.url, 'GARBAGE\r\n\r\n'));
    assert.deepEqual([res.status, res.body], [400, 'bad request']);
  });

  test('a Content-Length that is not a number: 400 bad request', async () => {
    const res = assertText(
      await rawRequest(
        gw.url,
        'POST /webhooks/idr_psp HTTP/1.1\r\nHost: gw\r\nContent-Length: abc\r\n\r\n',
      ),
    );
    assert.deepEqual([res.status, res.body], [400, 'bad request']);
  });

  test('headers over the size limit: 431 headers too large', async () => {
    const res = assertText(
      await rawRequest(gw.url, get('/healthz', `X-Big: ${'a'.repeat(20_000)}\r\n`)),
    );
    assert.deepEqual([res.status, res.body], [431, 'headers too large']);
  });

  test('a URL over the header size limit: 431 headers too large', async () => {
    const res = assertText(await rawRequest(gw.url, get(`/${'a'.repeat(20_000)}`)));
    assert.deepEqual([res.status, res.body], [431, 'headers too large']);
  });

  for (const path of [
    '/v1/payments/%zz',
    '/v1/payments/%E0%A4%A',
    '/admin/payments/%E0%A4%A',
    '/admin/payments/%zz/cancel',
    `/v1/payments/${'a'.repeat(200)}`,
    `/admin/payments/${'0'.repeat(150)}`,
  ]) {
    test(`a malformed payment id (${path.slice(0, 40)}): 404 payment not found`, async () => {
      const auth = path.startsWith('/admin') ? `Authorization: Bearer ${ADMIN_TOKEN}\r\n` : '';
      const res = assertText(await rawRequest(gw.url, get(path, auth)));
      assert.deepEqual([res.status, res.body], [404, 'payment not found']);
    });
  }

  test('bad percent-encoding elsewhere: 400 bad request', async () => {
    for (const path of ['/%zz', '/admin/apps/%E0%A4%A', '/sim/idr_psp/payments/%zz']) {
      const res = assertText(await rawRequest(gw.url, get(path)));
      assert.deepEqual([res.status, res.body], [400, 'bad request'], path);
    }
  });

  test('a route parameter over 100 characters elsewhere: 414 uri too long', async () => {
    const res = assertText(
      await rawRequest(gw.url, get(`/sim/idr_psp/payments/${'a'.repeat(200)}`)),
    );
    assert.deepEqual([res.status, res.body], [414, 'uri too long']);
  });
});

describe('slow and silent clients (HTTP_* timeouts)', () => {
  let gw: TestGateway;
  let slowProvider: Server;
  before(async () => {
    // A provider that takes longer to answer than a client may take to send its request.
    slowProvider = createServer((req, res) => {
      req.resume();
      setTimeout(() => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ token: 'tok-slow', redirect_url: 'https://pay.example/tok-slow' }),
        );
      }, 1500);
    });
    await new Promise<void>((r) => slowProvider.listen(0, '127.0.0.1', r));
    const port = (slowProvider.address() as AddressInfo).port;
    gw = await startTestGateway({
      HTTP_HEADERS_TIMEOUT_MS: '300',
      HTTP_REQUEST_TIMEOUT_MS: '500',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
      HTTP_CONNECTIONS_CHECK_INTERVAL_MS: '50',
      IDR_PSP_SANDBOX_BASE_URL: `http://127.0.0.1:${port}`,
      IDR_PSP_SANDBOX_SERVER_KEY: 'SB-Mid-server-slow',
    });
  });
  after(async () => {
    await gw?.stop();
    await new Promise((r) => slowProvider?.close(r));
  });

  test('a body trickled to the webhook route is cut off: 408 request timeout', async () => {
    const s = new RawSocket(gw.url);
    await s.connected();
    s.write(
      'POST /webhooks/idr_psp HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n' +
        'Content-Length: 40\r\n\r\n',
    );
    // One byte every 100 ms: the whole body would take 4 s.
    for (let i = 0; i < 40 && !s.closed; i++) {
      s.write('x');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await s.closedOrStillOpenAfter(5000), 'closed');
    const res = assertText(parseResponse(s.received()));
    assert.deepEqual([res.status, res.body], [408, 'request timeout']);
    s.destroy();
  });

  test('headers that never finish: 408 request timeout and closed', async () => {
    const { state, response } = await rawExchange(
      gw.url,
      'GET /healthz HTTP/1.1\r\nHost: gw\r\n',
      5000,
    );
    assert.equal(state, 'closed');
    const res = assertText(response);
    assert.deepEqual([res.status, res.body], [408, 'request timeout']);
  });

  test('a connection that never sends a byte is closed', async () => {
    const sockets = Array.from({ length: 20 }, () => new RawSocket(gw.url));
    await Promise.all(sockets.map((s) => s.connected()));
    try {
      for (const s of sockets) assert.equal(await s.closedOrStillOpenAfter(5000), 'closed');
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  test('an idle keep-alive connection is closed after its response', async () => {
    const s = new RawSocket(gw.url);
    await s.connected();
    s.write('GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n');
    assert.equal(await s.closedOrStillOpenAfter(5000), 'closed');
    assert.equal(parseResponse(s.received())?.status, 200);
  });

  test('a provider call longer than the request timeout still completes (201)', async () => {
    const app = await gw.createApp({ mode: 'sandbox' });
    const res = await gw.v1(app, 'POST', '/v1/payments', {
      external_user_id: 'buyer-slow',
      email: 'buyer@example.com',
      amount_minor: 10000,
      currency: 'IDR',
      method: 'qris',
      return_url: 'https://shop.example/back',
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json<{ checkout_url: string }>().checkout_url, 'https://pay.example/tok-slow');
  });
});

describe('connection cap (HTTP_MAX_CONNECTIONS)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ HTTP_MAX_CONNECTIONS: '3' });
  });
  after(() => gw?.stop());

  test('connections over the cap are refused; those under it are served', async () => {
    const held = [new RawSocket(gw.url), new RawSocket(gw.url), new RawSocket(gw.url)];
    await Promise.all(held.map((s) => s.connected()));
    const server = gw.running.http.server;
    await eventually(
      () => new Promise<boolean>((resolve) => server.getConnections((_e, n) => resolve(n === 3))),
    );
    const extra = new RawSocket(gw.url);
    await extra.connected();
    extra.write('GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n');
    assert.equal(await extra.closedOrStillOpenAfter(5000), 'closed');
    assert.equal(extra.received(), '', 'refused without an answer');
    const first = held[0] as RawSocket;
    first.write('GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n');
    assert.equal(await first.closedOrStillOpenAfter(5000), 'closed');
    assert.equal(parseResponse(first.received())?.status, 200);
    for (const s of held) s.destroy();
  });
});
