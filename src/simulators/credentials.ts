import { createHmac } from 'node:crypto';

/**
 * The test-mode credentials the simulated providers issue, as each real provider shapes
 * them. A real provider's dashboard hands its keys to the merchant; here both sides derive
 * them from the gateway's master key instead (HMAC-SHA256 of "simulator:<provider>:<label>"),
 * so every instance, and the simulators run as their own process, agree without an exchange.
 * The gateway derives the same values on its side (its test-mode endpoints); the simulators
 * keep their own derivation so that they share nothing with the adapters but the keys.
 */
function secret(masterKey: Buffer, provider: string, label: string): string {
  return createHmac('sha256', masterKey).update(`simulator:${provider}:${label}`).digest('hex');
}

/** idr_psp (Midtrans): one server key, sandbox style ("SB-Mid-server-..."). */
export function idrPspServerKey(masterKey: Buffer): string {
  return `SB-Mid-server-${secret(masterKey, 'idr_psp', 'server_key').slice(0, 24)}`;
}

/** card_psp (Polar): an organization access token and the Standard Webhooks secret. */
export function cardPspCredentials(masterKey: Buffer): {
  accessToken: string;
  webhookSecret: string;
} {
  const webhookKey = Buffer.from(secret(masterKey, 'card_psp', 'webhook_secret'), 'hex');
  return {
    accessToken: `polar_oat_${secret(masterKey, 'card_psp', 'access_token').slice(0, 40)}`,
    webhookSecret: `whsec_${webhookKey.toString('base64')}`,
  };
}

/** wallet_psp (PayPal): the REST app's client id and secret, and the webhook's id. */
export function walletPspCredentials(masterKey: Buffer): {
  clientId: string;
  clientSecret: string;
  webhookId: string;
} {
  return {
    clientId: `A${secret(masterKey, 'wallet_psp', 'client_id').slice(0, 40)}`,
    clientSecret: `E${secret(masterKey, 'wallet_psp', 'client_secret').slice(0, 40)}`,
    webhookId: `WH-${secret(masterKey, 'wallet_psp', 'webhook_id').slice(0, 17).toUpperCase()}`,
  };
}
