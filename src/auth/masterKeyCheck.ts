/**
 * At start, whether MASTER_KEY opens the app secrets already sealed in the database. An
 * instance started with another key (a typo, or in development a DATA_DIR with its own
 * generated master.key pointed at a shared DATABASE_URL) could authenticate no app and sign no
 * webhook; it refuses to start instead of failing every request and delivery it takes.
 */
import { newestSealedSecret } from '../db/apps.js';
import type { Queryable } from '../db/pool.js';
import { decryptSecret } from './crypto.js';

export class MasterKeyError extends Error {}

export async function checkMasterKey(db: Queryable, masterKey: Buffer): Promise<void> {
  const sealed = await newestSealedSecret(db);
  if (sealed === undefined) return;
  try {
    decryptSecret(masterKey, sealed);
  } catch {
    throw new MasterKeyError(
      'MASTER_KEY does not open the app secrets stored in this database (they were sealed ' +
        'under another key): start with the MASTER_KEY they were sealed with ' +
        '(docs/operations.md, "Several instances")',
    );
  }
}
