import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../scripts/net.js';
import { stopWatching, watchGateway } from './openapiCheck.js';

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  output(): string;
}

/** The real gateway as its own OS process (`node --import tsx src/main.ts`), ready when /readyz says so. */
export async function spawnGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}: ${out}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`gateway not ready in time: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // Its answers to this process are checked against the OpenAPI document (openapiCheck.ts).
  watchGateway(url);
  return { child, url, output: () => out };
}

export async function kill(p: GatewayProcess, signal: NodeJS.Signals): Promise<number | null> {
  const code = await exitOf(p, signal);
  stopWatching(p.url);
  return code;
}

async function exitOf(p: GatewayProcess, signal: NodeJS.Signals): Promise<number | null> {
  // Already gone (exited, or killed by a signal): there will be no other 'exit' event.
  if (p.child.exitCode !== null || p.child.signalCode !== null) return p.child.exitCode;
  const exited = new Promise<number | null>((resolve) =>
    p.child.once('exit', (code) => resolve(code)),
  );
  p.child.kill(signal);
  return exited;
}
