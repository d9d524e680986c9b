import type { Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';

export interface AppRow {
  id: string;
  name: string;
  mode: Mode;
  api_key: string;
  signing_secret_enc: string;
  webhook_secret_enc: string;
  webhook_url: string | null;
  allowed_providers: string[];
  allowed_methods: Record<string, string[]>;
  /** Set by a rotation with grace (until keys_rotate_at): the keys before the current ones. */
  previous_api_key: string | null;
  previous_signing_secret_enc: string | null;
  previous_webhook_secret_enc: string | null;
  keys_rotate_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, name, mode, api_key, signing_secret_enc, webhook_secret_enc, webhook_url,
  allowed_providers, allowed_methods, previous_api_key, previous_signing_secret_enc,
  previous_webhook_secret_enc, keys_rotate_at, created_at, updated_at`;

export async function insertApp(
  db: Queryable,
  app: Omit<
    AppRow,
    | 'created_at'
    | 'updated_at'
    | 'previous_api_key'
    | 'previous_signing_secret_enc'
    | 'previous_webhook_secret_enc'
    | 'keys_rotate_at'
  >,
): Promise<AppRow> {
  const res = await db.query<AppRow>(
    `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc, webhook_url,
       allowed_providers, allowed_methods)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
    [
      app.id,
      app.name,
      app.mode,
      app.api_key,
      app.signing_secret_enc,
      app.webhook_secret_enc,
      app.webhook_url,
      app.allowed_providers,
      JSON.stringify(app.allowed_methods),
    ],
  );
  return res.rows[0] as AppRow;
}

export async function findAppById(db: Queryable, id: string): Promise<AppRow | null> {
  const res = await db.query<AppRow>({
    name: 'apps_by_id',
    text: `SELECT ${COLUMNS} FROM apps WHERE id = $1`,
    values: [id],
  });
  return res.rows[0] ?? null;
}

export async function findAppByApiKey(db: Queryable, apiKey: string): Promise<AppRow | null> {
  const res = await db.query<AppRow>({
    name: 'apps_by_key',
    text: `SELECT ${COLUMNS} FROM apps WHERE api_key = $1`,
    values: [apiKey],
  });
  return res.rows[0] ?? null;
}

/**
 * The app whose previous api key this is (a rotation with grace); the caller decides whether
 * its window (keys_rotate_at) is still open, on the gateway's clock.
 */
export async function findAppByPreviousApiKey(
  db: Queryable,
  apiKey: string,
): Promise<AppRow | null> {
  const res = await db.query<AppRow>({
    name: 'apps_by_previous_key',
    text: `SELECT ${COLUMNS} FROM apps WHERE previous_api_key = $1`,
    values: [apiKey],
  });
  return res.rows[0] ?? null;
}

export async function listApps(db: Queryable): Promise<AppRow[]> {
  const res = await db.query<AppRow>(
    `SELECT ${COLUMNS} FROM apps ORDER BY created_at DESC, id DESC`,
  );
  return res.rows;
}

export interface AppPatch {
  name?: string;
  webhook_url?: string | null;
  allowed_providers?: string[];
  allowed_methods?: Record<string, string[]>;
}

export async function updateApp(
  db: Queryable,
  id: string,
  patch: AppPatch,
): Promise<AppRow | null> {
  const res = await db.query<AppRow>(
    `UPDATE apps SET
       name = COALESCE($2, name),
       webhook_url = CASE WHEN $3::boolean THEN $4 ELSE webhook_url END,
       allowed_providers = COALESCE($5, allowed_providers),
       allowed_methods = COALESCE($6::jsonb, allowed_methods),
       updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      patch.name ?? null,
      'webhook_url' in patch,
      patch.webhook_url ?? null,
      patch.allowed_providers ?? null,
      patch.allowed_methods ? JSON.stringify(patch.allowed_methods) : null,
    ],
  );
  return res.rows[0] ?? null;
}

/**
 * New keys. With grace hours the replaced ones become the previous keys until keys_rotate_at
 * (a rotation inside a window drops the keys before the current ones); without, they are
 * gone at once.
 */
export async function replaceAppKeys(
  db: Queryable,
  id: string,
  keys: { api_key: string; signing_secret_enc: string; webhook_secret_enc: string },
  graceHours = 0,
): Promise<AppRow | null> {
  const res = await db.query<AppRow>(
    `UPDATE apps SET
       previous_api_key = CASE WHEN $5::int > 0 THEN api_key END,
       previous_signing_secret_enc = CASE WHEN $5::int > 0 THEN signing_secret_enc END,
       previous_webhook_secret_enc = CASE WHEN $5::int > 0 THEN webhook_secret_enc END,
       keys_rotate_at = now() + $5::int * interval '1 hour',
       api_key = $2, signing_secret_enc = $3, webhook_secret_enc = $4, updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, keys.api_key, keys.signing_secret_enc, keys.webhook_secret_enc, graceHours],
  );
  return res.rows[0] ?? null;
}

/** Tells every instance (LISTEN on `channel`) that an app's keys changed. */
export async function notifyAppChanged(
  db: Queryable,
  channel: string,
  appId: string,
): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [channel, appId]);
}

/**
 * The newest app's sealed signing secret (the one most certainly sealed under the key in use
 * now); undefined when there is no app, or no apps table yet (a database not migrated).
 */
export async function newestSealedSecret(db: Queryable): Promise<string | undefined> {
  try {
    const res = await db.query<{ sealed: string }>(
      'SELECT signing_secret_enc AS sealed FROM apps ORDER BY created_at DESC LIMIT 1',
    );
    return res.rows[0]?.sealed;
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return undefined;
    throw err;
  }
}
