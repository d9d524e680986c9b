/**
 * Sandbox and live provider endpoints: `<PROVIDER>_<MODE>_BASE_URL` and the credentials each
 * provider needs beside it. A family of variables rather than a fixed list, so they are one
 * row of the docs table (PROVIDER_ROW) and docs/providers.md names them one by one.
 */
import { PROVIDERS, type Mode, type ProviderSlug } from '../domain/types.js';
import { ConfigError, parseHttpUrl, type Env, type SettingDoc } from './vars.js';

/** Credentials and endpoint of one provider in one mode. Keys are provider-specific. */
export interface ProviderEndpointConfig {
  baseUrl: string;
  credentials: Record<string, string>;
  /** The secret (or verification material) the provider's inbound webhooks are checked with. */
  webhookSecret: string;
}

export type ProviderEndpoints = Record<ProviderSlug, Partial<Record<Mode, ProviderEndpointConfig>>>;

/** Every credential is a secret: never logged, never shown. */
const PROVIDER_VARS: Record<ProviderSlug, { credentials: string[]; webhookSecret: string }> = {
  idr_psp: { credentials: ['SERVER_KEY'], webhookSecret: 'SERVER_KEY' },
  card_psp: { credentials: ['ACCESS_TOKEN'], webhookSecret: 'WEBHOOK_SECRET' },
  wallet_psp: { credentials: ['CLIENT_ID', 'CLIENT_SECRET'], webhookSecret: 'WEBHOOK_ID' },
};

export const PROVIDER_ROW: SettingDoc = {
  variable: '`<PROVIDER>_<MODE>_BASE_URL` and credentials',
  default: 'unset',
  meaning: 'sandbox/live endpoints, see `docs/providers.md`',
};

export function loadProviderEndpoints(env: Env): ProviderEndpoints {
  const out: ProviderEndpoints = { idr_psp: {}, card_psp: {}, wallet_psp: {} };
  for (const provider of PROVIDERS) {
    for (const mode of ['sandbox', 'live'] as const) {
      const prefix = `${provider.toUpperCase()}_${mode.toUpperCase()}_`;
      const rawBase = env[`${prefix}BASE_URL`];
      if (!rawBase) continue;
      const baseUrl = parseHttpUrl(rawBase, `${prefix}BASE_URL`);
      const spec = PROVIDER_VARS[provider];
      const credentials: Record<string, string> = {};
      for (const name of new Set([...spec.credentials, spec.webhookSecret])) {
        const value = env[prefix + name];
        if (!value)
          throw new ConfigError(`${prefix}${name} is required when ${prefix}BASE_URL is set`);
        credentials[camel(name)] = value;
      }
      out[provider][mode] = {
        baseUrl,
        credentials,
        webhookSecret: credentials[camel(spec.webhookSecret)] ?? '',
      };
    }
  }
  return out;
}

function camel(name: string): string {
  return name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}
