/**
 * At start, whether MASTER_KEY opens the app secrets already sealed in the database. An
 * instance started with another key (a typo, or in development a DATA_DIR with its own
 * generated master.key pointed at a shared DATABASE_URL) could authenticate no app and sign no
 * webhook; it refuses to start instead of failing every request and delivery it takes.
 */
import type { Queryable } from '../db/pool.js';
import { decryptSecret } from './crypto.js';

export class MasterKeyError extends Error {}

export async function checkMasterKey(db: Queryable, masterKey: Buffer): Promise<void> {
  // The newest app: the one most certainly sealed under the key in use now.
  let sealed: string | undefined;
  try {
    const res = await db.query<{ sealed: string }>(
      'SELECT signing_secret_enc AS sealed FROM apps ORDER BY created_at DESC LIMIT 1',
    );
    sealed = res.rows[0]?.sealed;
  } catch (err) {
    // A database not migrated yet has no apps table, and so no secret to open.
    if ((err as { code?: string }).code === '42P01') return;
    throw err;
  }
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
