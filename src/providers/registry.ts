import type { Config, ProviderEndpointConfig } from '../config.js';
import { MODES, type Mode, type ProviderSlug } from '../domain/types.js';
import { cardPsp } from './card_psp/index.js';
import { idrPsp } from './idr_psp/index.js';
import { simulatorEndpoint } from './testMode.js';
import type { PaymentProvider } from './types.js';
import { walletPsp } from './wallet_psp/index.js';

/** Addresses of this instance, known once the server listens (port 0 in tests). */
export interface GatewayUrls {
  /** How this process reaches itself (simulators calling /webhooks, adapters calling /sim). */
  internal: string;
  /** Base of URLs a browser follows (checkout pages). */
  public: string;
}

export class ProviderRegistry {
  private readonly providers: Record<ProviderSlug, PaymentProvider> = {
    idr_psp: idrPsp,
    card_psp: cardPsp,
    wallet_psp: walletPsp,
  };

  constructor(
    private readonly config: Pick<
      Config,
      'simulators' | 'simulatorsUrl' | 'masterKey' | 'providerEndpoints'
    >,
    private readonly urls: GatewayUrls,
  ) {}

  /**
   * Test-mode endpoints by simulator URL: their credentials are derived from the master key
   * with an HMAC each, which the create path paid on every payment before issue 28.
   */
  private readonly simulated = new Map<string, ProviderEndpointConfig>();

  get(slug: ProviderSlug): PaymentProvider {
    return this.providers[slug];
  }

  /** docs/api.md#modes: test mode uses the built-in simulators; sandbox and live their configured endpoint. */
  endpoint(slug: ProviderSlug, mode: Mode): ProviderEndpointConfig | null {
    if (mode === 'test') {
      // Simulators of their own process (SIMULATORS_URL), else the ones mounted here.
      const base =
        this.config.simulatorsUrl ?? (this.config.simulators ? this.urls.internal : null);
      if (base === null) return null;
      const url = `${base}/sim/${slug}`;
      let endpoint = this.simulated.get(url);
      if (!endpoint) {
        endpoint = simulatorEndpoint(slug, this.config.masterKey, url);
        this.simulated.set(url, endpoint);
      }
      return endpoint;
    }
    return this.config.providerEndpoints[slug][mode] ?? null;
  }

  /** Every mode with an endpoint, for verifying an inbound webhook under each one's secret. */
  configuredModes(slug: ProviderSlug): { mode: Mode; endpoint: ProviderEndpointConfig }[] {
    const out: { mode: Mode; endpoint: ProviderEndpointConfig }[] = [];
    for (const mode of MODES) {
      const endpoint = this.endpoint(slug, mode);
      if (endpoint) out.push({ mode, endpoint });
    }
    return out;
  }
}
