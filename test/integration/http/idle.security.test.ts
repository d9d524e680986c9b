/**
 * Many silent and half-sent connections at once (docs/operations.md#hostile-clients; issue
 * 21, finding 8): each is answered 408 `request timeout` and closed by the server within
 * HTTP_HEADERS_TIMEOUT_MS + HTTP_CONNECTIONS_CHECK_INTERVAL_MS of connecting, whether or
 * not the client ever reads, and the gateway keeps serving.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { parseResponse } from '../../helpers/rawHttp.js';

const HEADERS_TIMEOUT_MS = 500;
const CHECK_INTERVAL_MS = 100;
/** The documented bound, plus room for a loaded two-core machine. */
const BOUND_MS = HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS;
const SLACK_MS = 1500;

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: '1000',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
    HTTP_CONNECTIONS_CHECK_INTERVAL_MS: String(CHECK_INTERVAL_MS),
  });
});
after(() => gw?.stop());

interface Held {
  sock: Socket;
  received: Buffer[];
  openedAt: number;
  closedAt: number | null;
}

function open(reads: boolean, send?: string): Promise<Held> {
  const u = new URL(gw.url);
  const sock = connect(Number(u.port), u.hostname);
  const held: Held = { sock, received: [], openedAt: 0, closedAt: null };
  sock.on('error', () => undefined);
  // A client that never reads never sees the server's FIN ('close' waits for 'end').
  if (reads) sock.on('data', (d: Buffer) => held.received.push(d));
  sock.on('close', () => {
    held.closedAt = Date.now();
  });
  return new Promise((resolve) =>
    sock.once('connect', () => {
      held.openedAt = Date.now();
      if (send) sock.write(send);
      resolve(held);
    }),
  );
}

function serverConnections(): Promise<number> {
  const server = gw.running.http.server;
  return new Promise((resolve, reject) =>
    server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );
}

test('200 silent or half-sent connections: each answered 408 and closed within the bound; the gateway keeps serving', async () => {
  const silent = await Promise.all(Array.from({ length: 160 }, () => open(true)));
  const halfLine = await Promise.all(Array.from({ length: 20 }, () => open(true, 'GET /heal')));
  const halfHeaders = await Promise.all(
    Array.from({ length: 10 }, () => open(true, 'GET /healthz HTTP/1.1\r\nHost: gw\r\n')),
  );
  // Clients that never read: only the server's own count can show that they are gone.
  const deaf = await Promise.all(Array.from({ length: 10 }, () => open(false)));
  const all = [...silent, ...halfLine, ...halfHeaders, ...deaf];
  const readers = [...silent, ...halfLine, ...halfHeaders];
  assert.equal(all.length, 200);
  try {
    // While they are held, a normal request is still served.
    const during = await fetch(`${gw.url}/healthz`);
    assert.deepEqual([during.status, await during.text()], [200, '{"status":"ok"}']);

    const start = Math.min(...all.map((h) => h.openedAt));
    const deadline = start + BOUND_MS + SLACK_MS;
    while (Date.now() < deadline && readers.some((h) => h.closedAt === null)) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const stillOpen = readers.filter((h) => h.closedAt === null).length;
    assert.equal(
      stillOpen,
      0,
      `${stillOpen} connections still open after ${BOUND_MS + SLACK_MS} ms`,
    );
    for (const h of readers) {
      const lived = (h.closedAt as number) - h.openedAt;
      assert.ok(lived >= HEADERS_TIMEOUT_MS - 50, `closed after ${lived} ms, before the timeout`);
      assert.ok(lived <= BOUND_MS + SLACK_MS, `closed after ${lived} ms`);
      const res = parseResponse(Buffer.concat(h.received).toString('latin1'));
      assert.deepEqual(
        [res?.status, res?.headers['content-type'], res?.body],
        [408, 'text/plain; charset=utf-8', 'request timeout'],
      );
    }
    // The deaf clients' sockets are closed on the server's side as well: none is left.
    while (Date.now() < deadline && (await serverConnections()) > 0) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await serverConnections(), 0, 'the server holds no connection');

    const afterwards = await fetch(`${gw.url}/healthz`);
    assert.deepEqual([afterwards.status, await afterwards.text()], [200, '{"status":"ok"}']);
  } finally {
    for (const h of all) h.sock.destroy();
  }
});

test('an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
  const h = await open(true, 'GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n');
  try {
    const deadline = Date.now() + 500 + SLACK_MS;
    while (Date.now() < deadline && h.closedAt === null) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.notEqual(h.closedAt, null, 'closed');
    assert.equal(parseResponse(Buffer.concat(h.received).toString('latin1'))?.status, 200);
  } finally {
    h.sock.destroy();
  }
});
