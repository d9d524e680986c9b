import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { verifyWebhook } from '../../sdk/src/index.js';
import type { AppWithSecrets } from '../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { paidPayment } from '../helpers/payments.js';
import { Receiver } from '../helpers/receiver.js';

// `paygate listen --forward-to <url>` (the SDK package's bin, docs/integrate.md): run as its
// own process against a real gateway; a real payment's event reaches a local receiver,
// signed with the secret the command printed.

const ROOT = path.resolve(import.meta.dirname, '../..');
let gw: TestGateway;
let app: AppWithSecrets;
let receiver: Receiver;
let cli: ChildProcess | undefined;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Local dev' });
  receiver = new Receiver();
  await receiver.start();
});
after(async () => {
  cli?.kill('SIGTERM');
  await receiver?.stop();
  await gw?.stop();
});

function startListen(): Promise<{ secret: string; output: () => string }> {
  cli = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'sdk/src/cli.ts',
      'listen',
      '--forward-to',
      receiver.url,
      '--interval-ms',
      '200',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PAYGATE_URL: gw.url,
        PAYGATE_API_KEY: app.api_key,
        PAYGATE_SIGNING_SECRET: app.signing_secret,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  cli.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  cli.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`listen did not start:\n${out}`)), 20_000);
    const check = setInterval(() => {
      const m = /Webhook secret for this session: (whsec_[0-9a-f]{64})/.exec(out);
      if (m && out.includes('Ready.')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ secret: m[1] as string, output: () => out });
      }
    }, 50);
  });
}

test('forwards a real payment event, signed like a delivery with the printed secret; earlier events are not replayed', async () => {
  const earlier = await paidPayment(gw, app, 'idr', 1000);
  const { secret, output } = await startListen();
  assert.ok(output().includes(`Forwarding new events to ${receiver.url}`));
  receiver.secret = secret;

  const p = await paidPayment(gw, app, 'idr', 25000);
  const [got] = await receiver.waitFor(1);
  assert.ok(got);
  assert.equal(got.signatureValid, true, 'signed with the printed secret');
  const event = verifyWebhook(got.body, got.headers, secret);
  assert.equal(event.event, 'payment.succeeded');
  assert.equal(event.payment_id, p.id);
  // The event id is the gateway's own, as in a real delivery.
  const feed = (await gw.v1(app, 'GET', '/v1/events')).json<{
    events: { id: string; payload: { payment_id: string } }[];
  }>();
  const listed = feed.events.find((e) => e.payload.payment_id === p.id);
  assert.equal(got.headers['x-pay-event-id'], listed?.id);
  assert.deepEqual(JSON.parse(got.body), listed?.payload);

  await new Promise((r) => setTimeout(r, 600));
  assert.equal(receiver.received.length, 1, 'the event from before the start was not forwarded');
  assert.ok(!receiver.received.some((r) => r.body.includes(earlier.id)));
  assert.match(output(), new RegExp(`payment\\.succeeded ${listed?.id} -> 200`));
});

test('usage errors exit 2 with a message', async () => {
  const res = await new Promise<{ code: number | null; err: string }>((resolve) => {
    const c = spawn(process.execPath, ['--import', 'tsx', 'sdk/src/cli.ts', 'listen'], {
      cwd: ROOT,
      env: { ...process.env, PAYGATE_API_KEY: '', PAYGATE_SIGNING_SECRET: '' },
    });
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    c.on('close', (code) => resolve({ code, err }));
  });
  assert.equal(res.code, 2);
  assert.match(res.err, /^--forward-to is required\nusage: paygate listen/);
});
