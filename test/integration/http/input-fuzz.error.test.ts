/**
 * Hostile input on every endpoint that takes input: NUL characters, unpaired surrogates (as
 * JSON escapes and as raw bytes), bytes that are not UTF-8, metadata nested 5,000 deep, huge
 * numbers, in bodies, path parameters and query strings. Whatever the answer, it is never a
 * 5xx, and an error is plain text.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { paymentBody, TEXT_PLAIN } from '../../helpers/core.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

let gw: TestGateway;
let app: AppWithSecrets;
let paidId: string;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Fuzz shop' });
  paidId = (await paidPayment(gw, app, 'idr', 30000)).id;
});
after(() => gw?.stop());

/** JSON texts of hostile values, as a client could put them in a field. */
const VALUES: string[] = [
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udc00x"',
  '"x\\udbff"',
  '{"k":"\\u0000"}',
  '{"\\u0000":1}',
  '{"\\ud800":1}',
  '["\\ud800"]',
  '{"a":'.repeat(4999) + '{}' + '}'.repeat(4999),
  '['.repeat(5000) + ']'.repeat(5000),
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '9'.repeat(400),
  '0.0000000000000000000001',
  '-0',
];

/** Raw bytes spliced into an otherwise valid body. */
const BYTES: number[][] = [
  [0x00],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xff],
  [0xc0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
];

/** Path segments and query values, percent-encoded as they go on the wire. */
const SEGMENTS = ['%00', 'a%00b', '%ED%A0%80', '%FF', '%C0%80', '9'.repeat(400), '%F0%9F%98%80'];

/** Every field of `base` replaced by every hostile value, plus the value as an extra field. */
function bodies(base: Record<string, unknown>): Buffer[] {
  const out: Buffer[] = [];
  const fields = [...Object.keys(base), 'metadata', 'extra'];
  for (const v of VALUES) {
    for (const f of fields) {
      const rest = Object.fromEntries(Object.entries(base).filter(([k]) => k !== f));
      const json = JSON.stringify(rest).replace(
        /}$/,
        `${Object.keys(rest).length ? ',' : ''}"${f}":${v}}`,
      );
      out.push(Buffer.from(json));
    }
  }
  const template = Buffer.from(JSON.stringify({ ...base, extra: 'XX' }));
  for (const bytes of BYTES) {
    for (const f of Object.keys(base).filter((k) => typeof base[k] === 'string')) {
      const json = Buffer.from(JSON.stringify({ ...base, [f]: 'XX' }));
      const at = json.indexOf('XX');
      out.push(Buffer.concat([json.subarray(0, at), Buffer.from(bytes), json.subarray(at + 2)]));
    }
    const at = template.indexOf('XX');
    out.push(
      Buffer.concat([template.subarray(0, at), Buffer.from(bytes), template.subarray(at + 2)]),
    );
  }
  return out;
}

interface Answer {
  status: number;
  type: string;
  text: string;
}

async function send(
  method: string,
  path: string,
  body: Buffer | undefined,
  headers: Record<string, string>,
): Promise<Answer> {
  const res = await fetch(gw.url + path, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? new Uint8Array(body) : undefined,
  });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text: await res.text(),
  };
}

function v1(method: string, path: string, body?: Buffer, key?: string): Promise<Answer> {
  const ts = String(Math.floor(Date.now() / 1000));
  const hash = createHash('sha256')
    .update(body ?? Buffer.alloc(0))
    .digest('hex');
  const signedPath = path.split('?')[0] as string;
  const sig = createHmac('sha256', app.signing_secret)
    .update(`${ts}.${method}.${signedPath}.${hash}`)
    .digest('hex');
  return send(method, path, body, {
    'X-PAY-Key': app.api_key,
    'X-PAY-Timestamp': ts,
    'X-PAY-Signature': sig,
    ...(key ? { 'Idempotency-Key': key } : {}),
  });
}

function admin(method: string, path: string, body?: Buffer): Promise<Answer> {
  return send(method, path, body, { authorization: `Bearer ${ADMIN_TOKEN}` });
}

function check(what: string, a: Answer): void {
  assert.ok(a.status < 500, `${what}: ${a.status} ${a.text}`);
  if (a.status >= 400) assert.equal(a.type, TEXT_PLAIN, `${what}: ${a.status} ${a.text}`);
}

test('POST /v1/payments', async () => {
  let i = 0;
  for (const body of bodies(paymentBody())) {
    check(
      `payments ${body.toString('latin1').slice(0, 120)}`,
      await v1('POST', '/v1/payments', body, `fz-${i++}`),
    );
  }
});

test('POST /v1/refunds', async () => {
  let i = 0;
  for (const body of bodies({ payment_id: paidId, amount_minor: 1, reason: 'r' })) {
    check(
      `refunds ${body.toString('latin1').slice(0, 120)}`,
      await v1('POST', '/v1/refunds', body, `fr-${i++}`),
    );
  }
});

test('GET /v1/payments/{id}', async () => {
  for (const s of SEGMENTS) check(`get ${s}`, await v1('GET', `/v1/payments/${s}`));
});

test('admin apps: create, update, regenerate', async () => {
  const base = {
    name: 'n',
    webhook_url: 'https://hooks.example/x',
    allowed_providers: ['idr_psp'],
    allowed_methods: { idr_psp: ['qris'] },
  };
  for (const body of bodies(base)) {
    check(
      `create ${body.toString('latin1').slice(0, 120)}`,
      await admin('POST', '/admin/apps', body),
    );
    check(
      `patch ${body.toString('latin1').slice(0, 120)}`,
      await admin('PATCH', `/admin/apps/${app.app_id}`, body),
    );
  }
  for (const s of SEGMENTS) {
    check(`patch id ${s}`, await admin('PATCH', `/admin/apps/${s}`, Buffer.from('{"name":"n"}')));
    check(`regenerate ${s}`, await admin('POST', `/admin/apps/${s}/regenerate-keys`));
  }
});

test('admin payment actions: cancel, refund, retry-webhook, detail', async () => {
  for (const s of SEGMENTS) {
    for (const action of ['cancel', 'refund', 'retry-webhook']) {
      check(`${action} ${s}`, await admin('POST', `/admin/payments/${s}/${action}`));
    }
    check(`detail ${s}`, await admin('GET', `/admin/payments/${s}`));
  }
  for (const body of bodies({ amount_minor: 1, reason: 'r' })) {
    check(
      `admin refund ${body.toString('latin1').slice(0, 120)}`,
      await admin('POST', `/admin/payments/${paidId}/refund`, body),
    );
  }
});

test('admin list and report query parameters', async () => {
  const params: Record<string, string[]> = {
    '/admin/payments': ['mode', 'status', 'limit', 'before'],
    '/admin/refunds': ['mode', 'limit', 'before'],
    '/admin/summary': ['days', 'since', 'until', 'mode'],
    '/admin/timeseries': ['days', 'mode'],
    '/admin/inbound_events': ['payment_id'],
    '/admin/deliveries': ['status', 'limit'],
    '/admin/payouts': ['since', 'until'],
    '/admin/balances': ['mode'],
  };
  for (const [path, names] of Object.entries(params)) {
    for (const name of names) {
      for (const s of SEGMENTS)
        check(`${path}?${name}=${s}`, await admin('GET', `${path}?${name}=${s}`));
    }
  }
});
