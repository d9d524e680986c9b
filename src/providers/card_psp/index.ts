import type { PaymentProvider } from '../types.js';
import { ProviderError } from '../types.js';

// Placeholder until the adapter lands.
export const cardPsp: PaymentProvider = {
  slug: 'card_psp',
  async register() {
    throw new ProviderError('rejected', 'card_psp adapter not implemented');
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
