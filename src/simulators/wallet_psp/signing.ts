import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  randomUUID,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { WP_AUTH_ALGO, WP_HEADER } from './wire.js';
import type { SimStore } from '../common.js';
import { selfSignedCertificate } from './x509.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/**
 * What PayPal signs for one transmission (developer.paypal.com/api/rest/webhooks/rest,
 * "Verify the signature"): transmission id, transmission time, the webhook's id and the
 * CRC32 of the raw body as an unsigned decimal, joined with "|". Written here from that page
 * (node's zlib CRC32), not taken from the adapter's verifier.
 */
export function transmissionMessage(
  transmissionId: string,
  transmissionTime: string,
  webhookId: string,
  body: Buffer,
): string {
  return [transmissionId, transmissionTime, webhookId, String(crc32(body))].join('|');
}

/** The simulator's one webhook signing key, shared by every instance through the database. */
export interface SigningKeyRecord {
  keyId: string;
  privateKeyPem: string;
  certificatePem: string;
}

export interface SigningKey {
  keyId: string;
  privateKey: KeyObject;
  certificatePem: string;
}

const KEY_ID = 'default';

/**
 * Loads the signing key, creating it on first use. Two instances creating it at once both
 * generate a pair, but only the first insert is stored and both use the stored one.
 */
export async function loadSigningKey(
  store: SimStore<SigningKeyRecord>,
  now: number,
): Promise<SigningKey> {
  let record = await store.get(KEY_ID);
  if (!record) {
    const { publicKey, privateKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    const fingerprint = createHash('sha256').update(spki).digest('hex');
    const keyId = `${fingerprint.slice(0, 8)}-${fingerprint.slice(8, 16)}-${fingerprint.slice(16, 24)}`;
    const certificatePem = selfSignedCertificate({
      publicKey,
      privateKey,
      commonName: 'messageverificationcerts.wallet-psp.sim',
      organization: 'wallet_psp simulator',
      notBefore: new Date(now - 86_400_000),
      notAfter: new Date(now + 20 * 365 * 86_400_000),
    });
    const candidate: SigningKeyRecord = {
      keyId,
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      certificatePem,
    };
    record = (await store.create(KEY_ID, candidate)).data;
  }
  const privateKey = createPrivateKey(record.privateKeyPem);
  // Fail loudly on a stored record whose certificate does not match its key.
  createPublicKey(record.certificatePem);
  return { keyId: record.keyId, privateKey, certificatePem: record.certificatePem };
}

/** Path (under the simulator base URL) the certificate is served at, as the provider does. */
export function certPath(keyId: string): string {
  return `/v1/notifications/certs/CERT-${keyId}`;
}

/** Transmission headers for one delivery of a webhook body. */
export function transmissionHeaders(opts: {
  key: SigningKey;
  baseUrl: string;
  webhookId: string;
  body: string;
  now: number;
}): Record<string, string> {
  const transmissionId = randomUUID();
  const transmissionTime = new Date(opts.now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const message = transmissionMessage(
    transmissionId,
    transmissionTime,
    opts.webhookId,
    Buffer.from(opts.body, 'utf8'),
  );
  const signature = sign('sha256', Buffer.from(message, 'utf8'), opts.key.privateKey);
  return {
    [WP_HEADER.transmissionId]: transmissionId,
    [WP_HEADER.transmissionTime]: transmissionTime,
    [WP_HEADER.transmissionSig]: signature.toString('base64'),
    [WP_HEADER.certUrl]: opts.baseUrl + certPath(opts.key.keyId),
    [WP_HEADER.authAlgo]: WP_AUTH_ALGO,
  };
}

/**
 * The provider's verify-webhook-signature check of one delivery: its own algorithm, its own
 * certificate (by path: the simulator is reached under more than one host), the webhook id
 * the merchant registered, and the signature over the event as the provider serializes it.
 */
export function verifyTransmission(
  key: SigningKey,
  webhookId: string,
  req: Record<string, unknown>,
): 'SUCCESS' | 'FAILURE' {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  let certPathname = '';
  try {
    certPathname = new URL(text(req.cert_url)).pathname;
  } catch {
    return 'FAILURE';
  }
  if (text(req.auth_algo) !== WP_AUTH_ALGO) return 'FAILURE';
  if (!certPathname.endsWith(certPath(key.keyId))) return 'FAILURE';
  if (text(req.webhook_id) !== webhookId || webhookId === '') return 'FAILURE';
  const signature = Buffer.from(text(req.transmission_sig), 'base64');
  const message = transmissionMessage(
    text(req.transmission_id),
    text(req.transmission_time),
    webhookId,
    Buffer.from(JSON.stringify(req.webhook_event), 'utf8'),
  );
  const publicKey = createPublicKey(key.certificatePem);
  return signature.length > 0 &&
    verify('sha256', Buffer.from(message, 'utf8'), publicKey, signature)
    ? 'SUCCESS'
    : 'FAILURE';
}
