import type { PaymentProvider } from '../types.js';
import { ProviderError } from '../types.js';

// Placeholder until the adapter lands.
export const walletPsp: PaymentProvider = {
  slug: 'wallet_psp',
  async register() {
    throw new ProviderError('rejected', 'wallet_psp adapter not implemented');
  },
  async verifyWebhook() {
    return false;
  },
  parseWebhook() {
    return { eventType: 'unknown', action: { kind: 'none' } };
  },
  async fetchStatus() {
    return { kind: 'none' };
  },
};
