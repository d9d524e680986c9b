/**
 * The data folder's side effects, apart from reading the environment: creating DATA_DIR and
 * keeping generated secrets in it. Called last by the loaders, so that a configuration with
 * an error writes nothing.
 */
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { ConfigError } from './vars.js';

/** DATA_DIR, created if missing; a file there or no permission is a configuration error. */
export function ensureDataDir(dataDir: string): void {
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new ConfigError(`DATA_DIR ${dataDir} is a file, not a folder: set DATA_DIR to a folder`);
  }
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(
      `DATA_DIR ${dataDir} cannot be created (${code}): set DATA_DIR to a folder this user can write`,
    );
  }
}

/**
 * A secret generated once and kept in DATA_DIR (mode 600). Written under a temporary name
 * and linked into place, so that two processes starting at once agree on one value and
 * neither reads a half-written file.
 */
function keptSecret(file: string, generate: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, generate() + '\n', { mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return readFileSync(file, 'utf8').trim();
}

/** DATA_DIR/<name>, generated on first use. */
export function dataDirSecret(dataDir: string, name: string, generate: () => string): string {
  ensureDataDir(dataDir);
  const file = path.join(dataDir, name);
  try {
    return keptSecret(file, generate);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(
      `cannot keep ${file} (${code}): set DATA_DIR to a folder this user can write`,
    );
  }
}
