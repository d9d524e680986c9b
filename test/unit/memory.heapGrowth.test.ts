import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

// Issue 29: the gateway bounds V8's old-generation headroom (src/memory.ts), so the heap
// follows the live objects instead of growing to several times them between collections.

const run = promisify(execFile);

/**
 * A process holding 32 MiB of live strings in a FIFO map (what the settled-payment cache
 * did before its ring buffer), churning through 120 MB more; prints the largest heap V8 reserved meanwhile.
 */
const CHURN = `
import { boundHeapGrowth } from './src/memory.ts';
const set = process.argv[1] === 'bound' ? boundHeapGrowth() : null;
const LIVE = 32 * 2 ** 20;
const live = new Map();
let bytes = 0, peak = 0;
for (let i = 0; i < 150000; i++) {
  const s = JSON.stringify({ i, pad: 'y'.repeat(800) });
  live.set(i, s);
  bytes += s.length;
  while (bytes > LIVE) {
    const [k, v] = live.entries().next().value;
    live.delete(k);
    bytes -= v.length;
  }
  if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
}
console.log(JSON.stringify({ set, peakMiB: peak / 2 ** 20 }));
`;

async function churn(
  mode: 'bound' | 'default',
  flags: string[] = [],
): Promise<{ set: boolean | null; peakMiB: number }> {
  const { stdout } = await run(
    process.execPath,
    [...flags, '--import', 'tsx', '--input-type=module', '-e', CHURN, mode],
    { env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return JSON.parse(stdout) as { set: boolean | null; peakMiB: number };
}

test('the heap stays near its live objects with the bound, and well below the default', async () => {
  const [bound, unbound] = await Promise.all([churn('bound'), churn('default')]);
  assert.equal(bound.set, true);
  assert.ok(
    bound.peakMiB < unbound.peakMiB * 0.85,
    `bounded ${bound.peakMiB} MiB against ${unbound.peakMiB} MiB by default`,
  );
});

test("an operator's own --heap-growing-percent wins", async () => {
  const given = await churn('bound', ['--heap-growing-percent=50']);
  assert.equal(given.set, false);
});
