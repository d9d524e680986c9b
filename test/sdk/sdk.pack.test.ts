/**
 * The published artefact, not the sources: `npm pack` in sdk/, install the tarball into an
 * empty folder (offline: the package has no dependencies), run the README's quick-start
 * script against a real gateway, and type-check a consumer against the shipped declarations.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'sdk');

let work: string;
let consumer: string;
let gw: TestGateway;

function run(cmd: string, args: string[], cwd: string): string {
  const res = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  });
  assert.equal(res.status, 0, `${cmd} ${args.join(' ')} failed:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'paygate-sdk-pack-'));
  consumer = path.join(work, 'consumer');
  gw = await startTestGateway();
});
after(async () => {
  await gw?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

let tarball: string;

/** The commands of the README's "Install" section, verbatim (comments dropped). */
function installCommands(): string[] {
  const readme = readFileSync(path.join(SDK, 'README.md'), 'utf8');
  const m = /## Install\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(m?.[1], 'the README has an install block');
  return m[1]
    .trim()
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, ''));
}

test("the README's install commands are the ones tested here, never the registry's name", () => {
  assert.deepEqual(installCommands(), [
    'npm pack ./sdk --pack-destination /tmp',
    'npm install /tmp/paygate-node-0.1.0.tgz',
  ]);
  const readme = readFileSync(path.join(SDK, 'README.md'), 'utf8');
  assert.ok(!/^npm install @paygate\/node/m.test(readme));
});

test('npm pack ./sdk (from the repository root) builds the package: dist with declarations, README, no sources', () => {
  // As the README says, with our folder for /tmp.
  const out = run('npm', ['pack', './sdk', '--json', '--pack-destination', work], ROOT);
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as {
    name: string;
    filename: string;
    files: { path: string }[];
  }[];
  assert.equal(info?.name, '@paygate/node');
  const files = (info?.files ?? []).map((f) => f.path).sort();
  for (const f of ['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts']) {
    assert.ok(files.includes(f), `${f} is in the tarball: ${files.join(', ')}`);
  }
  assert.deepEqual(
    files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json'),
    [],
  );
  tarball = path.join(work, info?.filename ?? '');
});

test('the tarball installs offline into an empty folder and brings no dependencies', () => {
  run('mkdir', ['-p', consumer], work);
  writeFileSync(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  run('npm', ['install', tarball, '--offline', '--no-audit', '--ignore-scripts'], consumer);
  const installed = readdirSync(path.join(consumer, 'node_modules')).filter(
    (n) => !n.startsWith('.'),
  );
  assert.deepEqual(installed, ['@paygate']);
  const pkg = JSON.parse(
    readFileSync(path.join(consumer, 'node_modules/@paygate/node/package.json'), 'utf8'),
  ) as { dependencies?: unknown };
  assert.equal(pkg.dependencies, undefined);
});

test('CommonJS code loads the package with require', () => {
  writeFileSync(
    path.join(consumer, 'load.cjs'),
    `const { Paygate, verifyWebhook, PaygateNotFoundError } = require('@paygate/node');
const p = new Paygate({ baseUrl: 'http://localhost:8080', apiKey: 'pk_x', signingSecret: 'sk_x' });
console.log(typeof p.payments.create, typeof verifyWebhook, new PaygateNotFoundError(404, 'x') instanceof Error);
`,
  );
  const res = spawnSync(process.execPath, ['load.cjs'], { cwd: consumer, encoding: 'utf8' });
  assert.deepEqual(
    { status: res.status, stdout: res.stdout, stderr: res.stderr },
    { status: 0, stdout: 'function function true\n', stderr: '' },
  );
});

/** The first ```js block under the README's "Quick start" heading, verbatim. */
function quickStart(): string {
  const readme = readFileSync(path.join(consumer, 'node_modules/@paygate/node/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const m = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(m?.[1], 'the README has a quick-start script');
  return m[1];
}

test("the README's quick-start script runs against a real gateway: create, pay, waitForFinal", async () => {
  const app = await gw.createApp();
  writeFileSync(path.join(consumer, 'pay.mjs'), quickStart());
  const child = spawn(process.execPath, ['pay.mjs'], {
    cwd: consumer,
    env: {
      ...process.env,
      PAYGATE_URL: gw.url,
      PAYGATE_API_KEY: app.api_key,
      PAYGATE_SIGNING_SECRET: app.signing_secret,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const until = Date.now() + 20_000;
    while (!out.includes('send the buyer to')) {
      if (child.exitCode !== null || Date.now() > until) assert.fail(`script output: ${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const [row] = await sql<{ id: string; provider_ref: string }>(
      gw.databaseUrl,
      'SELECT id, provider_ref FROM payments WHERE app_id = $1',
      [app.app_id],
    );
    assert.ok(row, 'the script created a payment');
    assert.match(out, new RegExp(`send the buyer to http://localhost:\\d+/sim/idr_psp/`));
    const paid = await fetch(`${gw.url}/sim/idr_psp/payments/${row.provider_ref}/pay`, {
      method: 'POST',
    });
    assert.equal(paid.status, 200);
    assert.equal(await exited, 0, out);
    assert.match(out, new RegExp(`payment ${row.id} succeeded\\n$`));
  } finally {
    if (child.exitCode === null) child.kill();
  }
});

test('the shipped declarations type-check a TypeScript consumer and narrow webhook events', () => {
  writeFileSync(
    path.join(consumer, 'check.ts'),
    `import { Paygate, PaygateError, PaygateNotFoundError, verifyWebhook, type WebhookEvent, type FinalPayment } from '@paygate/node';

const paygate = new Paygate({ baseUrl: 'http://localhost:8080', apiKey: 'pk_x', signingSecret: 'sk_x' });

export async function settle(id: string): Promise<FinalPayment['status']> {
  try {
    const created = await paygate.payments.create(
      { external_user_id: 'u', email: 'u@example.com', amount_minor: 100, currency: 'IDR', method: 'qris', return_url: 'https://x.example' },
      { idempotencyKey: 'k' },
    );
    const final = await paygate.payments.waitForFinal(created.payment_id, { signal: AbortSignal.timeout(1000) });
    return final.status;
  } catch (err) {
    if (err instanceof PaygateNotFoundError) return 'failed';
    if (err instanceof PaygateError) throw new Error(String(err.status) + err.message);
    throw err;
  }
}

export function amountOf(raw: Buffer, headers: Record<string, string>): number | string {
  const event: WebhookEvent = verifyWebhook(raw, headers, 'whsec_x', { toleranceSec: 60 });
  switch (event.event) {
    case 'payment.succeeded':
    case 'payment.failed':
    case 'payment.canceled':
      // @ts-expect-error a payment event has no refund_id
      void event.refund_id;
      return event.amount;
    case 'refund.succeeded':
    case 'refund.failed':
      return event.refund_id;
    case 'subscription.canceled':
    case 'subscription.revoked':
      return event.subscription_id;
  }
}

// @ts-expect-error currency is a closed list
void paygate.payments.create({ external_user_id: 'u', amount_minor: 1, currency: 'JPY', method: 'qris', return_url: 'https://x.example' });
`,
  );
  run(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--typeRoots',
      path.join(ROOT, 'node_modules/@types'),
      '--types',
      'node',
      'check.ts',
    ],
    consumer,
  );
});
