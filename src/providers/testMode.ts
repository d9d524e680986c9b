import { simulatorSecret, type ProviderEndpointConfig } from '../config.js';
import type { ProviderSlug } from '../domain/types.js';

/**
 * Test-mode credentials the gateway's adapters and the built-in simulators share, in the
 * shape each real provider issues them. Derived from the master key: stable across
 * restarts and identical on every instance. The core owns them; the simulators are handed
 * the same master key and derive the same values here.
 */
export function simulatorEndpoint(
  provider: ProviderSlug,
  masterKey: Buffer,
  baseUrl: string,
): ProviderEndpointConfig {
  const s = (label: string) => simulatorSecret(masterKey, `${provider}:${label}`);
  switch (provider) {
    case 'idr_psp': {
      const serverKey = `SB-Mid-server-${s('server_key').slice(0, 24)}`;
      return { baseUrl, credentials: { serverKey }, webhookSecret: serverKey };
    }
    case 'card_psp': {
      const webhookSecret = `whsec_${Buffer.from(s('webhook_secret'), 'hex').toString('base64')}`;
      return {
        baseUrl,
        credentials: { accessToken: `polar_oat_${s('access_token').slice(0, 40)}`, webhookSecret },
        webhookSecret,
      };
    }
    case 'wallet_psp': {
      const webhookId = `WH-${s('webhook_id').slice(0, 17).toUpperCase()}`;
      return {
        baseUrl,
        credentials: {
          clientId: `A${s('client_id').slice(0, 40)}`,
          clientSecret: `E${s('client_secret').slice(0, 40)}`,
          webhookId,
        },
        webhookSecret: webhookId,
      };
    }
  }
}
