import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../scripts/net.js';
import { stopWatching, watchGateway } from './openapiCheck.js';

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  output(): string;
}

/** A server entry run as its own OS process (`node --import tsx <entry>`), ready when readyPath answers 200. */
async function spawnReady(
  what: string,
  entry: string,
  env: Record<string, string>,
  port: number,
  readyPath: string,
): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}: ${out}`);
    try {
      const res = await fetch(`${url}${readyPath}`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      // Not left running: a leaked child keeps the test file's process alive for good.
      child.kill('SIGKILL');
      throw new Error(`${what} not ready in time: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, output: () => out };
}

/** The real gateway as its own OS process (`node --import tsx src/main.ts`), ready when /readyz says so. */
export async function spawnGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const gateway = await spawnReady(
    'gateway',
    'src/main.ts',
    { ...env, PORT: String(port) },
    port,
    '/readyz',
  );
  // Its answers to this process are checked against the OpenAPI document (openapiCheck.ts).
  watchGateway(gateway.url);
  return gateway;
}

/**
 * The provider simulators as their own OS process (src/simulators/main.ts, what `npm run
 * simulators` runs compiled), on the given port, ready when /healthz says so.
 */
export async function spawnSimulators(
  env: Record<string, string>,
  port: number,
): Promise<GatewayProcess> {
  return spawnReady(
    'simulators',
    'src/simulators/main.ts',
    { ...env, SIMULATORS_PORT: String(port) },
    port,
    '/healthz',
  );
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
