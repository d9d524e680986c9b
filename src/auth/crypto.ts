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
