/**
 * Start-up time: how long a start command takes until GET /readyz answers 200, over several
 * runs (each stopped with SIGTERM before the next). The figures in docs/performance.md.
 *
 *   npx tsx scripts/startup-time.ts [RUNS] -- COMMAND [ARG ...]
 *
 * The environment passes through (DATABASE_URL, DATA_DIR, ...); PORT and HOST are set here.
 */
import { spawn } from 'node:child_process';
import { freePort } from './net.js';

async function once(command: string[]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command[0] as string, command.slice(1), {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true, // its own process group: npm's children stop with it
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited early`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 120_000) throw new Error('not ready within 120 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
}

const sep = process.argv.indexOf('--');
const runs = Number(process.argv[sep > 2 ? 2 : -1] ?? 5) || 5;
const command = process.argv.slice(sep + 1);
if (sep < 0 || command.length === 0) {
  console.error('usage: tsx scripts/startup-time.ts [RUNS] -- COMMAND [ARG ...]');
  process.exit(2);
}
const times: number[] = [];
await once(command); // warm-up: file cache, first build
for (let i = 0; i < runs; i++) times.push(await once(command));
times.sort((a, b) => a - b);
const ms = (t: number) => `${Math.round(t)} ms`;
console.log(
  `${command.join(' ')}: to /readyz median ${ms(times[Math.floor(times.length / 2)] as number)}, ` +
    `min ${ms(times[0] as number)}, max ${ms(times.at(-1) as number)} (${runs} runs)`,
);
