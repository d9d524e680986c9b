/**
 * A wrong signature from a test-mode app is logged with the string the gateway signed, so a
 * developer can diff it with theirs (docs/api.md#request-signing); never a secret or the
 * expected signature, and nothing of the kind for sandbox or live apps.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createLogger } from '../../../src/logger.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, paymentBody } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { sign } from '../../helpers/http.js';

const MSG =
  'bad signature (test mode): the gateway signed canonical_string; compare it with the string you signed';

interface LogLine {
  level: number;
  msg: string;
  app_id?: string;
  canonical_string?: string;
  reqId?: string;
}

const written: string[] = [];
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway(
    {},
    { log: createLogger('info', { write: (s: string) => void written.push(s) }) },
  );
});
after(async () => {
  await gw?.stop();
});

/**
 * POST /v1/payments (or GET /v1/payments/{id}, the polled route, with its empty body) signed
 * with a secret that is not the app's; the log written meanwhile.
 */
async function wronglySigned(app: AppWithSecrets, method: 'POST' | 'GET' = 'POST') {
  const body = method === 'POST' ? JSON.stringify(paymentBody()) : '';
  const path = method === 'POST' ? '/v1/payments' : `/v1/payments/${'0'.repeat(32)}`;
  const ts = String(Math.floor(Date.now() / 1000));
  const from = written.length;
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}),
      'X-PAY-Key': app.api_key,
      'X-PAY-Timestamp': ts,
      'X-PAY-Signature': sign(`${app.signing_secret}x`, ts, method, path, body),
    },
    ...(method === 'POST' ? { body } : {}),
  });
  const text401 = await res.text();
  assertError(
    { status: res.status, text: text401, headers: res.headers, json: () => JSON.parse(text401) },
    401,
    'bad signature',
  );
  const text = written.slice(from).join('');
  const hash = createHash('sha256').update(body).digest('hex');
  return {
    text,
    lines: text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as LogLine),
    canonical: `${ts}.${method}.${path}.${hash}`,
    expected: sign(app.signing_secret, ts, method, path, body),
  };
}

for (const method of ['POST', 'GET'] as const) {
  test(`test mode, ${method}: one info line with the canonical string, no secret, no expected signature`, async () => {
    const app = await gw.createApp({ name: `Signing test shop ${method}` });
    const got = await wronglySigned(app, method);
    const logged = got.lines.filter((l) => l.msg === MSG);
    assert.equal(logged.length, 1, got.text);
    const [line] = logged;
    assert.equal(line?.level, 30); // pino's info
    assert.equal(line?.app_id, app.app_id);
    assert.equal(line?.canonical_string, got.canonical);
    assert.equal(typeof line?.reqId, 'string');
    for (const secret of [app.signing_secret, app.webhook_secret, got.expected]) {
      assert.ok(!got.text.includes(secret), `the log holds ${secret}: ${got.text}`);
    }
  });
}

for (const mode of ['sandbox', 'live'] as const) {
  test(`${mode} mode: a wrong signature logs nothing of what the gateway signed`, async () => {
    const app = await gw.createApp({ name: `Signing ${mode} shop`, mode });
    for (const method of ['POST', 'GET'] as const) {
      const got = await wronglySigned(app, method);
      assert.deepEqual(
        got.lines.filter((l) => l.msg === MSG || l.canonical_string !== undefined),
        [],
      );
      assert.ok(!got.text.includes(got.canonical), got.text);
    }
  });
}
