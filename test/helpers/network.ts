import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { WebhookNetwork } from '../../src/delivery/network.js';

/**
 * The outbound-webhook network of a test gateway: names resolve from a table the test
 * controls (anything else does not resolve, so no test asks a real DNS server), and every
 * socket, once its address has passed the gateway's own check, is pointed at loopback.
 * Tests thus never send traffic beyond 127.0.0.1, yet live-mode checks run for real.
 */
export class TestNetwork implements WebhookNetwork {
  readonly names = new Map<string, string[]>([['localhost', ['127.0.0.1']]]);
  /** Addresses that passed the check and were handed to a new socket, in order. */
  readonly dialed: string[] = [];

  /** name -> addresses it resolves to from now on. */
  set(name: string, ...addresses: string[]): void {
    this.names.set(name, addresses);
  }

  resolve = async (host: string): Promise<LookupAddress[]> => {
    const addresses = this.names.get(host.replace(/\.+$/, '').toLowerCase());
    if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    return addresses.map((address) => ({ address, family: isIP(address) }));
  };

  redirect = (checked: LookupAddress): LookupAddress => {
    this.dialed.push(checked.address);
    return { address: '127.0.0.1', family: 4 };
  };
}
