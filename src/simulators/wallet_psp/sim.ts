import type { SimulatorHost } from '../host.js';
import { SimStore, type SimClock } from '../common.js';
import type { WpResourceType, WpWebhookEvent } from './wire.js';
import { walletPspCredentials } from '../credentials.js';
import { providerId, providerTime, type SimOrder, type SimToken } from './orders.js';
import {
  loadSigningKey,
  transmissionHeaders,
  type SigningKey,
  type SigningKeyRecord,
} from './signing.js';

/** The wallet provider as seen from outside: everything the adapter and the buyer talk to. */
export interface WalletPspSim {
  /** Base URL of the provider API (the adapter's baseUrl in test mode). */
  apiBase(): string;
  credentials(): ReturnType<typeof walletPspCredentials>;
  signingKey(): Promise<SigningKey>;
  /** A webhook exactly as the provider would transmit it: body and signed headers. */
  signedEvent(
    eventType: string,
    resourceType: WpResourceType,
    resource: unknown,
    summary: string,
  ): Promise<{ headers: Record<string, string>; body: string }>;
  orders: SimStore<SimOrder>;
  tokens: SimStore<SimToken>;
}

const keyCache = new WeakMap<SimulatorHost, Promise<SigningKey>>();

export function walletPspSim(gw: SimulatorHost, clock: SimClock): WalletPspSim {
  const keys = new SimStore<SigningKeyRecord>(gw.pool, 'wallet_psp', 'signing_key');
  const apiBase = () => `${gw.urls.internal}/sim/wallet_psp`;
  const credentials = () => walletPspCredentials(gw.config.masterKey);
  const signingKey = () => {
    let p = keyCache.get(gw);
    if (!p) {
      p = loadSigningKey(keys, clock.now());
      // A failed load (database hiccup) must not stick: the next event tries again.
      p.catch(() => keyCache.delete(gw));
      keyCache.set(gw, p);
    }
    return p;
  };
  return {
    apiBase,
    credentials,
    signingKey,
    async signedEvent(eventType, resourceType, resource, summary) {
      const now = clock.now();
      const event: WpWebhookEvent = {
        id: `WH-${providerId(17)}-${providerId(17)}`,
        event_version: '1.0',
        create_time: providerTime(now),
        resource_type: resourceType,
        resource_version: '2.0',
        event_type: eventType,
        summary,
        resource,
        links: [],
      };
      const body = JSON.stringify(event);
      const headers = transmissionHeaders({
        key: await signingKey(),
        baseUrl: apiBase(),
        webhookId: credentials().webhookId,
        body,
        now,
      });
      return { headers, body };
    },
    orders: new SimStore<SimOrder>(gw.pool, 'wallet_psp', 'order'),
    tokens: new SimStore<SimToken>(gw.pool, 'wallet_psp', 'access_token'),
  };
}
