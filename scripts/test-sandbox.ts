/**
 * `npm run test:sandbox`: the idr_psp, card_psp and wallet_psp adapters against the providers'
 * real sandboxes, for an operator to run before going live (docs/providers/idr_psp.md,
 * card_psp.md and wallet_psp.md). Not part of `npm test`: it needs the network and sandbox credentials. Runs
 * the suite of each provider whose variables are all set; with none set, says which to set.
 */
import { spawn } from 'node:child_process';

export const SANDBOX_VARS = {
  idr_psp: ['IDR_PSP_SANDBOX_BASE_URL', 'IDR_PSP_SANDBOX_SERVER_KEY'],
  card_psp: [
    'CARD_PSP_SANDBOX_BASE_URL',
    'CARD_PSP_SANDBOX_ACCESS_TOKEN',
    'CARD_PSP_SANDBOX_WEBHOOK_SECRET',
    'CARD_PSP_SANDBOX_PRODUCT_ID',
  ],
  wallet_psp: [
    'WALLET_PSP_SANDBOX_BASE_URL',
    'WALLET_PSP_SANDBOX_CLIENT_ID',
    'WALLET_PSP_SANDBOX_CLIENT_SECRET',
    'WALLET_PSP_SANDBOX_WEBHOOK_ID',
  ],
} as const;

function main(): Promise<number> {
  const ready = Object.entries(SANDBOX_VARS).filter(([, vars]) =>
    vars.every((v) => (process.env[v] ?? '') !== ''),
  );
  for (const [provider, vars] of Object.entries(SANDBOX_VARS)) {
    const missing = vars.filter((v) => (process.env[v] ?? '') === '');
    if (missing.length > 0 && missing.length < vars.length) {
      console.error(`${provider}: incomplete, missing ${missing.join(', ')}`);
      return Promise.resolve(2);
    }
  }
  if (ready.length === 0) {
    console.error('test:sandbox needs the sandbox credentials of at least one provider:');
    for (const [provider, vars] of Object.entries(SANDBOX_VARS)) {
      console.error(`  ${provider}: ${vars.join(' ')}`);
    }
    console.error('See docs/providers/idr_psp.md, card_psp.md and wallet_psp.md.');
    return Promise.resolve(2);
  }
  const files = ready.map(([provider]) => `test/sandbox/${provider}.sandbox.ts`);
  console.log(`test:sandbox: ${ready.map(([p]) => p).join(', ')} against the real sandbox`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', ...files], {
      stdio: 'inherit',
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

process.exitCode = await main();
