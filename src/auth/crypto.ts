import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The digest of no bytes: every signed GET's body. */
const EMPTY_SHA256_HEX = sha256Hex('');

const bodyDigests = new WeakMap<Buffer, string>();

/**
 * sha256Hex of a request body as Fastify read it: one Buffer per request, never written to
 * afterwards. A signed POST digests its body twice, for the signature's canonical string
 * and for the Idempotency-Key's request hash; the second is the first one, kept with the
 * Buffer (and gone with it). A body of no bytes (every signed GET) has a constant digest.
 */
export function bodySha256Hex(body: Buffer): string {
  if (body.length === 0) return EMPTY_SHA256_HEX;
  let hex = bodyDigests.get(body);
  if (hex === undefined) {
    hex = sha256Hex(body);
    bodyDigests.set(body, hex);
  }
  return hex;
}

/** Secrets are HMAC keys as the UTF-8 bytes of the issued string, never decoded (docs/api.md#request-signing, #webhook-signing). */
export function hmacSha256Hex(key: string, message: string | Buffer): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/** Constant-time string comparison; unequal lengths compare a digest so timing stays flat. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(
      createHash('sha256').update(ab).digest(),
      createHash('sha256').update(bb).digest(),
    );
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** A random secret with a readable prefix, e.g. pk_..., sk_..., whsec_... */
export function newSecret(prefix: string, bytes = 24): string {
  return prefix + randomBytes(bytes).toString('hex');
}

const VERSION = 'v1';

/** AES-256-GCM under the operator's master key: v1.<iv>.<tag>.<ciphertext>, base64url parts. */
export function encryptSecret(masterKey: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv, tag, ct]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function decryptSecret(masterKey: Buffer, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ct === undefined)
    throw new Error('malformed sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}
