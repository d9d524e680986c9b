/**
 * The gateway's two secrets, apart from the other settings: the master key (encrypts app
 * secrets at rest) and the operator's admin token. Production must set both; a development
 * install keeps generated ones in DATA_DIR so that they survive restarts.
 */
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { dataDirSecret } from './dataDir.js';
import { ConfigError } from './vars.js';

/** MASTER_KEY's text: 64 hex characters or base64 of 32 bytes. */
export function parseMasterKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('MASTER_KEY must be 32 bytes, as 64 hex characters or base64');
  }
  return key;
}

/** ADMIN_TOKEN's rule, checked when it is read. */
export function checkAdminToken(raw: string): void {
  if (raw.length < 16) throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
}

/** Before anything is read further: production names both secrets. */
export function requireProductionSecrets(
  isProd: boolean,
  given: { adminToken: unknown; masterKey: unknown },
): void {
  if (!isProd) return;
  if (given.adminToken === undefined) {
    throw new ConfigError('ADMIN_TOKEN is required when PAYGATE_ENV=production');
  }
  if (given.masterKey === undefined) {
    throw new ConfigError('MASTER_KEY is required when PAYGATE_ENV=production');
  }
}

/** The given master key, or (development) the one kept in DATA_DIR/master.key. */
export function masterKeyOrKept(given: Buffer | undefined, dataDir: string): Buffer {
  if (given) return given;
  const hex = dataDirSecret(dataDir, 'master.key', () => randomBytes(32).toString('hex'));
  const key = Buffer.from(hex, 'hex');
  if (key.length !== 32) {
    throw new ConfigError(
      `${path.join(dataDir, 'master.key')} is damaged: restore it from a backup, or set MASTER_KEY`,
    );
  }
  return key;
}

/**
 * The given admin token, or (development) the one kept in DATA_DIR/admin-token, so that the
 * dashboard stays signed in across restarts; `file` says where it was kept.
 */
export function adminTokenOrKept(
  given: string | undefined,
  dataDir: string,
): { token: string; file: string | undefined } {
  if (given) return { token: given, file: undefined };
  const file = path.join(dataDir, 'admin-token');
  const token = dataDirSecret(
    dataDir,
    'admin-token',
    () => 'adm_' + randomBytes(24).toString('hex'),
  );
  if (token.length < 16) {
    throw new ConfigError(`${file} is damaged: delete it to have a new token generated`);
  }
  return { token, file };
}

/**
 * Test-mode credentials of the built-in simulators, derived from the master key so that every
 * instance sharing a master key (and a simulator run as its own process) agrees on them.
 */
export function simulatorSecret(masterKey: Buffer, label: string): string {
  return createHmac('sha256', masterKey).update(`simulator:${label}`).digest('hex');
}
