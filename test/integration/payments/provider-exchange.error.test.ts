/**
 * The provider clients' HTTP exchange (src/providers/http.ts) against a real HTTP server on
 * loopback: what a provider call resolves with and how it fails. Since issue 28's fourth
 * pass it is undici's dispatcher with a handler of its own instead of undici's `request`; the
 * answers below are the ones `request` plus `body.text()` gave.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  MAX_PROVIDER_ANSWER_BYTES,
  ProviderAnswerTooLargeError,
  ProviderTimeoutError,
  providerExchange,
} from '../../../src/providers/http.js';

let server: Server;
let base: string;
const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '').split('?')[0];
      if (path === '/echo') {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, url: req.url, body }));
      } else if (path === '/bom') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"é"}')]));
      } else if (path === '/chunked') {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.write('bad ');
        setTimeout(() => res.end('gateway ✓'), 20);
      } else if (path === '/early-hints') {
        res.writeEarlyHints({ link: '</x>; rel=preload' });
        res.writeHead(200);
        res.end('after hints');
      } else if (path === '/empty') {
        res.writeHead(204);
        res.end();
      } else if (path === '/slow-body') {
        res.writeHead(200);
        res.write('part');
        // Never ends within the caller's deadline.
        setTimeout(() => res.end(), 2_000);
      } else if (path === '/endless') {
        // Streams past the limit and would go on.
        res.writeHead(200);
        const chunk = Buffer.alloc(1 << 20, 0x61);
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', more);
        };
        more();
      } else if (path === '/silent') {
        setTimeout(() => res.end('late'), 2_000);
      } else {
        res.writeHead(404);
        res.end('no such path');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const call = (path: string, init: Partial<Parameters<typeof providerExchange>[1]> = {}) =>
  providerExchange(`${base}${path}`, { method: 'GET', headers: {}, timeoutMs: 1_000, ...init });

test('status and whole body; method, path with query, headers and body reach the provider', async () => {
  const a = await call('/echo?x=1&y=%20', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' },
    body: '{"n":1}',
  });
  assert.equal(a.status, 201);
  assert.deepEqual(JSON.parse(a.text), { method: 'POST', url: '/echo?x=1&y=%20', body: '{"n":1}' });
  const last = seen.at(-1)!;
  assert.equal(last.headers['idempotency-key'], 'k-1');
  assert.equal(last.headers['content-type'], 'application/json');
});

test('a fragment is not sent; the same address twice is the same request', async () => {
  await call('/echo#frag');
  await call('/echo#frag');
  assert.deepEqual(
    seen.slice(-2).map((s) => s.url),
    ['/echo', '/echo'],
  );
});

test('the body is decoded as UTF-8 with a leading byte order mark dropped', async () => {
  assert.deepEqual(await call('/bom'), { status: 200, text: '{"a":"é"}' });
});

test('a body in several chunks is joined; an error status is an answer, not a failure', async () => {
  assert.deepEqual(await call('/chunked'), { status: 502, text: 'bad gateway ✓' });
  assert.deepEqual(await call('/missing'), { status: 404, text: 'no such path' });
});

test('an informational answer (103) before the real one is not the status', async () => {
  assert.deepEqual(await call('/early-hints'), { status: 200, text: 'after hints' });
});

test('no body: empty text', async () => {
  assert.deepEqual(await call('/empty'), { status: 204, text: '' });
});

test('no answer within the deadline: ProviderTimeoutError (TimeoutError), no later than it', async () => {
  for (const path of ['/silent', '/slow-body']) {
    const t0 = Date.now();
    await assert.rejects(call(path, { timeoutMs: 150 }), (err: unknown) => {
      assert.ok(err instanceof ProviderTimeoutError);
      assert.equal(err.name, 'TimeoutError');
      return true;
    });
    const took = Date.now() - t0;
    assert.ok(took >= 140 && took < 1_500, `${path}: rejected after ${took} ms`);
  }
  // The pool is still usable after aborted calls.
  assert.equal((await call('/echo')).status, 201);
});

test('nobody listening: the transport error, not a timeout', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  await assert.rejects(
    providerExchange(`http://127.0.0.1:${port}/x`, {
      method: 'GET',
      headers: {},
      timeoutMs: 1_000,
    }),
    (err: unknown) => {
      assert.ok(!(err instanceof ProviderTimeoutError));
      assert.match((err as { code?: string }).code ?? '', /ECONNREFUSED/);
      return true;
    },
  );
});

test('an address that is not http(s) is refused before anything is sent', async () => {
  await assert.rejects(
    providerExchange('ftp://127.0.0.1/x', { method: 'GET', headers: {}, timeoutMs: 1_000 }),
    /Invalid URL protocol/,
  );
  await assert.rejects(
    providerExchange('not a url', { method: 'GET', headers: {}, timeoutMs: 1_000 }),
    TypeError,
  );
});

test('an answer past MAX_PROVIDER_ANSWER_BYTES fails the exchange before its deadline and the connection is dropped', async () => {
  const started = Date.now();
  await assert.rejects(
    providerExchange(`${base}/endless`, { method: 'GET', headers: {}, timeoutMs: 20_000 }),
    (err: Error) =>
      err instanceof ProviderAnswerTooLargeError &&
      err.message === `provider answer over ${MAX_PROVIDER_ANSWER_BYTES} bytes`,
  );
  assert.ok(Date.now() - started < 20_000);
  // The pool still works for the next exchange.
  const ok = await providerExchange(`${base}/echo`, {
    method: 'GET',
    headers: {},
    timeoutMs: 5_000,
  });
  assert.equal(ok.status, 201);
});
