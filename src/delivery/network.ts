import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { isPublicAddress, judgeHost, type ResolveHost } from '../domain/addresses.js';

/**
 * How outbound webhooks find their hosts. Production uses the system resolver and connects to
 * what it returns; tests inject both parts through the gateway's start options, never through
 * configuration (test/helpers/network.ts).
 */
export interface WebhookNetwork {
  resolve: ResolveHost;
  /**
   * Tests only: where the socket really goes once an address has passed the check, so that a
   * name resolving to a public address can be delivered to a receiver on loopback.
   */
  redirect?: (checked: LookupAddress) => LookupAddress;
}

export const systemNetwork: WebhookNetwork = {
  resolve: (host) =>
    new Promise((resolve, reject) =>
      lookup(host, { all: true, verbatim: true }, (err, addresses) =>
        err ? reject(err) : resolve(addresses),
      ),
    ),
};

/**
 * The addresses a socket for `host` may connect to. With publicOnly every address the host
 * resolves to must be public (one private address refuses the host: the resolver's order is
 * not ours to trust), and the socket then connects only to those checked addresses.
 */
export async function dialAddresses(
  network: WebhookNetwork,
  host: string,
  publicOnly: boolean,
): Promise<LookupAddress[]> {
  const literal = host.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  if (isIP(literal) !== 0) {
    if (publicOnly && !isPublicAddress(literal)) {
      throw new Error('webhook_url is not a public address');
    }
    addresses = [{ address: literal, family: isIP(literal) }];
  } else {
    if (publicOnly && judgeHost(host) === 'private') {
      throw new Error('webhook_url is not a public address');
    }
    addresses = [...(await network.resolve(host))];
    if (addresses.length === 0) throw new Error(`webhook_url host ${host} has no address`);
    const bad = publicOnly ? addresses.find((a) => !isPublicAddress(a.address)) : undefined;
    if (bad) {
      throw new Error(`webhook_url resolves to a private address (${bad.address})`);
    }
  }
  const redirect = network.redirect;
  return redirect ? addresses.map((a) => redirect(a)) : addresses;
}
