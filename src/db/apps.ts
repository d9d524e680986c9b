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
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, name, mode, api_key, signing_secret_enc, webhook_secret_enc, webhook_url,
  allowed_providers, allowed_methods, created_at, updated_at`;

export async function insertApp(
  db: Queryable,
  app: Omit<AppRow, 'created_at' | 'updated_at'>,
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

export async function replaceAppKeys(
  db: Queryable,
  id: string,
  keys: { api_key: string; signing_secret_enc: string; webhook_secret_enc: string },
): Promise<AppRow | null> {
  const res = await db.query<AppRow>(
    `UPDATE apps SET api_key = $2, signing_secret_enc = $3, webhook_secret_enc = $4, updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, keys.api_key, keys.signing_secret_enc, keys.webhook_secret_enc],
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
