import { apiError } from './errors.js';
import type { ProviderSlug } from './types.js';

export const IDR_METHODS = [
  'qris',
  'va_bca',
  'va_mandiri',
  'va_bni',
  'va_bri',
  'va_permata',
] as const;
const CARD_WALLET_CURRENCIES = ['USD', 'EUR', 'GBP'] as const;

/** (currency, method) -> providers in routing order; the first allowed one wins (docs/api.md#routing). */
const ROUTES = new Map<string, readonly ProviderSlug[]>();
for (const m of IDR_METHODS) ROUTES.set(`IDR:${m}`, ['idr_psp']);
for (const c of CARD_WALLET_CURRENCIES) {
  ROUTES.set(`${c}:card_psp`, ['card_psp']);
  ROUTES.set(`${c}:wallet_psp`, ['wallet_psp']);
}

/** Every method each provider supports: the default allowed_methods of a new app (docs/api.md#apps). */
export const PROVIDER_METHODS: Record<ProviderSlug, readonly string[]> = {
  idr_psp: IDR_METHODS,
  card_psp: ['card_psp'],
  wallet_psp: ['wallet_psp'],
};

export interface RoutingPolicy {
  allowedProviders: readonly string[];
  allowedMethods: Record<string, readonly string[]>;
}

export function routePayment(currency: string, method: string, app: RoutingPolicy): ProviderSlug {
  const candidates = ROUTES.get(`${currency}:${method}`);
  if (!candidates) {
    throw apiError('no_provider', method, currency);
  }
  const allowed = candidates.find((p) => app.allowedProviders.includes(p));
  if (!allowed) throw apiError('provider_not_allowed', String(candidates[0]));
  if (!(app.allowedMethods[allowed] ?? []).includes(method)) {
    throw apiError('method_not_enabled', method, allowed);
  }
  return allowed;
}
