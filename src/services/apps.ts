import { decryptSecret, encryptSecret, newSecret } from '../auth/crypto.js';
import * as appsDb from '../db/apps.js';
import type { AppRow } from '../db/apps.js';
import { withTransaction, type Pool } from '../db/pool.js';
import { isPublicAddress, judgeHost, type ResolveHost } from '../domain/addresses.js';
import { apiError } from '../domain/errors.js';
import { newAppId } from '../domain/ids.js';
import { textProblem } from '../domain/jsonInput.js';
import { isHttpUrl } from '../domain/paymentRequest.js';
import { APP_MESSAGES, CREATE_APP } from '../domain/schemas.js';
import { PROVIDER_METHODS } from '../domain/routing.js';
import { isMode, isProvider, PROVIDERS, type Mode, type ProviderSlug } from '../domain/types.js';
import { redactUrl, type Audit } from './audit.js';

export interface AppServiceDeps {
  db: Pool;
  masterKey: Buffer;
  allowPrivateWebhookTargets: boolean;
  /** Resolves a webhook_url host name of a live app (the system resolver outside tests). */
  resolveHost: ResolveHost;
  /** Called after an app changes so that key caches on every instance drop it. */
  onAppChanged?: (appId: string) => Promise<void>;
}

export interface AppView {
  app_id: string;
  name: string;
  mode: Mode;
  api_key: string;
  webhook_url: string | null;
  allowed_providers: string[];
  allowed_methods: Record<string, string[]>;
  created_at: string;
}

export interface AppWithSecrets extends AppView {
  signing_secret: string;
  webhook_secret: string;
}

const bad = (reason: string) => apiError('invalid', reason);

export function toAppView(row: AppRow): AppView {
  return {
    app_id: row.id,
    name: row.name,
    mode: row.mode,
    api_key: row.api_key,
    webhook_url: row.webhook_url,
    allowed_providers: row.allowed_providers,
    allowed_methods: row.allowed_methods,
    created_at: row.created_at.toISOString(),
  };
}

function withSecrets(row: AppRow, signingSecret: string, webhookSecret: string): AppWithSecrets {
  const view = toAppView(row);
  // Field order of the create response (docs/api.md#apps).
  return {
    app_id: view.app_id,
    name: view.name,
    mode: view.mode,
    api_key: view.api_key,
    signing_secret: signingSecret,
    webhook_secret: webhookSecret,
    webhook_url: view.webhook_url,
    allowed_providers: view.allowed_providers,
    allowed_methods: view.allowed_methods,
    created_at: view.created_at,
  };
}

// The rules and texts of the CREATE_APP and PATCH_APP schemas (src/domain/schemas.ts).
const RULES = CREATE_APP.schema.properties;
const MSG = APP_MESSAGES;

function parseName(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw bad(MSG.name);
  if (v.length > RULES.name.maxLength) throw bad(MSG.name_length);
  return v;
}

function parseWebhookUrl(v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !isHttpUrl(v) || v.length > RULES.webhook_url.maxLength) {
    throw bad(MSG.webhook_url);
  }
  return v;
}

const RESOLVE_TIMEOUT_MS = 5000;

/** The host's addresses, or none when it does not resolve (in time). */
async function addressesOf(resolve: ResolveHost, host: string): Promise<readonly string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<[]>((done) => {
    timer = setTimeout(() => done([]), RESOLVE_TIMEOUT_MS).unref();
  });
  try {
    const found = await Promise.race([resolve(host), timeout]);
    return found.map((a) => a.address);
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A live app's webhook_url must reach only public addresses (docs/operations.md). A name that
 * does not resolve now is accepted: its DNS may not exist yet, and every delivery checks the
 * addresses it actually connects to.
 */
export async function checkWebhookTarget(
  deps: Pick<AppServiceDeps, 'allowPrivateWebhookTargets' | 'resolveHost'>,
  mode: Mode,
  url: string | null,
  refusal: string = MSG.webhook_url_public,
): Promise<void> {
  if (url === null || mode !== 'live' || deps.allowPrivateWebhookTargets) return;
  const host = new URL(url).hostname;
  const verdict = judgeHost(host);
  if (verdict === 'public') return;
  if (verdict === 'name') {
    const addresses = await addressesOf(deps.resolveHost, host);
    if (addresses.every((a) => isPublicAddress(a))) return;
  }
  throw bad(refusal);
}

function parseProviders(v: unknown): ProviderSlug[] {
  if (v === undefined) return [...PROVIDERS];
  if (!Array.isArray(v) || !v.every((p) => typeof p === 'string')) {
    throw bad(MSG.allowed_providers);
  }
  for (const p of v) if (!isProvider(p)) throw bad(`unknown provider ${p}`);
  return [...new Set(v as ProviderSlug[])];
}

/** Providers missing from the object keep every method they support (see docs/api.md). */
function parseMethods(v: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of PROVIDERS) out[p] = [...PROVIDER_METHODS[p]];
  if (v === undefined) return out;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw bad(MSG.allowed_methods);
  }
  for (const [p, methods] of Object.entries(v)) {
    if (!isProvider(p)) throw bad(`unknown provider ${p}`);
    if (!Array.isArray(methods) || !methods.every((m) => typeof m === 'string')) {
      throw bad(`allowed_methods.${p} must be an array of method slugs`);
    }
    for (const m of methods) {
      if (!PROVIDER_METHODS[p].includes(m))
        throw bad(`method ${m} is not supported by provider ${p}`);
    }
    out[p] = [...new Set(methods as string[])];
  }
  return out;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad(MSG.body);
  }
  return body as Record<string, unknown>;
}

function newKeys(masterKey: Buffer) {
  const signingSecret = newSecret('sk_', 32);
  const webhookSecret = newSecret('whsec_', 32);
  return {
    plain: { signingSecret, webhookSecret },
    sealed: {
      api_key: newSecret('pk_', 16),
      signing_secret_enc: encryptSecret(masterKey, signingSecret),
      webhook_secret_enc: encryptSecret(masterKey, webhookSecret),
    },
  };
}

/** What an audit entry keeps of an app's settings: never its keys, its URL redacted. */
function auditedSettings(fields: appsDb.AppPatch & { mode?: Mode }): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  if ('webhook_url' in fields) out.webhook_url = redactUrl(fields.webhook_url ?? null);
  return out;
}

export async function createApp(
  deps: AppServiceDeps,
  rawBody: unknown,
  audit: Audit,
): Promise<AppWithSecrets> {
  const body = objectBody(rawBody);
  const name = parseName(body.name);
  const mode = body.mode ?? 'test';
  if (!isMode(mode)) throw bad(MSG.mode);
  const webhookUrl = parseWebhookUrl(body.webhook_url);
  await checkWebhookTarget(deps, mode, webhookUrl);
  const allowedProviders = parseProviders(body.allowed_providers);
  const allowedMethods = parseMethods(body.allowed_methods);
  const keys = newKeys(deps.masterKey);
  const settings = {
    name,
    mode,
    webhook_url: webhookUrl,
    allowed_providers: allowedProviders,
    allowed_methods: allowedMethods,
  };
  const row = await withTransaction(deps.db, async (tx) => {
    const inserted = await appsDb.insertApp(tx, { id: newAppId(), ...settings, ...keys.sealed });
    await audit(tx, {
      targetType: 'app',
      targetId: inserted.id,
      outcome: 'created',
      details: auditedSettings(settings),
    });
    return inserted;
  });
  return withSecrets(row, keys.plain.signingSecret, keys.plain.webhookSecret);
}

export async function listApps(deps: AppServiceDeps): Promise<AppView[]> {
  return (await appsDb.listApps(deps.db)).map(toAppView);
}

const appNotFound = () => apiError('app_not_found');

/** An id the database cannot even compare (a NUL, an unpaired surrogate) names no app. */
async function findApp(deps: AppServiceDeps, id: string): Promise<AppRow | null> {
  return textProblem(id) ? null : appsDb.findAppById(deps.db, id);
}

export async function patchApp(
  deps: AppServiceDeps,
  id: string,
  rawBody: unknown,
  audit: Audit,
): Promise<AppView> {
  const body = objectBody(rawBody);
  if ('mode' in body) throw bad(MSG.mode_change);
  const current = await findApp(deps, id);
  if (!current) throw appNotFound();
  const patch: appsDb.AppPatch = {};
  if ('name' in body) patch.name = parseName(body.name);
  if ('webhook_url' in body) {
    patch.webhook_url = parseWebhookUrl(body.webhook_url);
    await checkWebhookTarget(deps, current.mode, patch.webhook_url);
  }
  if ('allowed_providers' in body) patch.allowed_providers = parseProviders(body.allowed_providers);
  if ('allowed_methods' in body) patch.allowed_methods = parseMethods(body.allowed_methods);
  const row = await withTransaction(deps.db, async (tx) => {
    const updated = await appsDb.updateApp(tx, id, patch);
    if (updated) {
      await audit(tx, {
        targetType: 'app',
        targetId: id,
        outcome: 'updated',
        details: auditedSettings(patch),
      });
    }
    return updated;
  });
  if (!row) throw appNotFound();
  await deps.onAppChanged?.(id);
  return toAppView(row);
}

/**
 * New api key and secrets (docs/api.md#regenerate-keys). With grace_hours the old ones keep
 * working until `rotates_at`, which the answer then carries; without, they stop at once.
 */
export async function regenerateKeys(
  deps: AppServiceDeps,
  id: string,
  graceHours: number,
  audit: Audit,
): Promise<AppWithSecrets & { rotates_at?: string }> {
  const current = await findApp(deps, id);
  if (!current) throw appNotFound();
  const keys = newKeys(deps.masterKey);
  const row = await withTransaction(deps.db, async (tx) => {
    const replaced = await appsDb.replaceAppKeys(tx, id, keys.sealed, graceHours);
    // The keys themselves are never recorded.
    if (replaced) {
      await audit(tx, {
        targetType: 'app',
        targetId: id,
        outcome: 'regenerated',
        ...(graceHours > 0 ? { details: { grace_hours: graceHours } } : {}),
      });
    }
    return replaced;
  });
  if (!row) throw appNotFound();
  await deps.onAppChanged?.(id);
  const answer = withSecrets(row, keys.plain.signingSecret, keys.plain.webhookSecret);
  if (graceHours === 0 || !row.keys_rotate_at) return answer;
  return { ...answer, rotates_at: row.keys_rotate_at.toISOString() };
}

export function appSigningSecret(masterKey: Buffer, row: AppRow): string {
  return decryptSecret(masterKey, row.signing_secret_enc);
}

export function appWebhookSecret(masterKey: Buffer, row: AppRow): string {
  return decryptSecret(masterKey, row.webhook_secret_enc);
}
