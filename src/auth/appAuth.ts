import type { AppRow } from '../db/apps.js';
import { apiError } from '../domain/errors.js';
import { bodySha256Hex, hmacSha256Hex, safeEqual, sha256Hex } from './crypto.js';

export const TIMESTAMP_TOLERANCE_S = 300;

export interface SignedRequest {
  method: string;
  /** Request path without the query string (docs/api.md#request-signing). */
  path: string;
  rawBody: Buffer;
  key: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

export interface AuthenticatedApp {
  app: AppRow;
  signingSecret: string;
  /** A previous key during its rotation window: it authenticates until this time (ms). */
  validUntil?: number;
}

/** Looks an app up by its public key; null when no app has it. */
export type AppKeyLookup = (
  apiKey: string,
) => AuthenticatedApp | null | Promise<AuthenticatedApp | null>;

export function canonicalString(
  timestamp: string,
  method: string,
  path: string,
  rawBody: Buffer | string,
): string {
  return canonicalOfDigest(timestamp, method, path, sha256Hex(rawBody));
}

function canonicalOfDigest(
  timestamp: string,
  method: string,
  path: string,
  digest: string,
): string {
  return `${timestamp}.${method.toUpperCase()}.${path}.${digest}`;
}

export function signRequest(
  secret: string,
  timestamp: string,
  method: string,
  path: string,
  rawBody: Buffer | string,
): string {
  return hmacSha256Hex(secret, canonicalString(timestamp, method, path, rawBody));
}

/**
 * Called when a test-mode app's signature does not match, with the string the gateway
 * signed: a developer diffs it with theirs (docs/api.md#request-signing). It holds no
 * secret; the expected signature is never passed, since it would sign that very request.
 */
export type SignatureMismatch = (app: AppRow, canonical: string) => void;

/**
 * docs/api.md#request-signing in its order; an unknown key is indistinguishable from a wrong
 * signature. authenticateAppNow's checks, every 401 as a rejection.
 */
export async function authenticateApp(
  req: SignedRequest,
  lookup: AppKeyLookup,
  nowMs: number,
  onTestModeMismatch?: SignatureMismatch,
): Promise<AuthenticatedApp> {
  return authenticateAppNow(req, lookup, nowMs, onTestModeMismatch);
}

/**
 * The request's checks without a promise when the key's lookup answers at once (a cached key: almost every signed request). A rule's 401 is thrown
 * synchronously then; after a lookup that has to load, the promise rejects with it.
 */
export function authenticateAppNow(
  req: SignedRequest,
  lookup: AppKeyLookup,
  nowMs: number,
  onTestModeMismatch?: SignatureMismatch,
): AuthenticatedApp | Promise<AuthenticatedApp> {
  const key = checkSignedHeaders(req, nowMs);
  const found = lookup(key);
  return found instanceof Promise
    ? found.then((f) => verifySignature(req, key, f, onTestModeMismatch))
    : verifySignature(req, key, found, onTestModeMismatch);
}

/** Rules 1 to 3 (headers present, an integer timestamp within the window): the key, or their 401. */
function checkSignedHeaders(req: SignedRequest, nowMs: number): string {
  const { key, timestamp, signature } = req;
  if (!key || !timestamp || !signature) throw apiError('missing_auth_headers');
  if (!/^-?\d{1,15}$/.test(timestamp)) throw apiError('bad_timestamp');
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > TIMESTAMP_TOLERANCE_S) {
    throw apiError('timestamp_out_of_range');
  }
  return key;
}

/** Rule 4 once the key is looked up: the signature, compared in constant time. */
function verifySignature(
  req: SignedRequest,
  key: string,
  found: AuthenticatedApp | null,
  onTestModeMismatch: SignatureMismatch | undefined,
): AuthenticatedApp {
  // The request's own body Buffer: its digest is kept for the Idempotency-Key's hash
  // (crypto.ts bodySha256Hex); a signer's Buffer may be reused, so canonicalString never keeps it.
  const canonical = canonicalOfDigest(
    req.timestamp as string,
    req.method,
    req.path,
    bodySha256Hex(req.rawBody),
  );
  const expected = found ? hmacSha256Hex(found.signingSecret, canonical) : sha256Hex(key); // same work either way, no early exit that times key existence
  if (!found || !safeEqual(expected, req.signature as string)) {
    // Only a test-mode app: sandbox and live keys never make the gateway say what it signed.
    if (found?.app.mode === 'test') onTestModeMismatch?.(found.app, canonical);
    throw apiError('bad_signature');
  }
  return found;
}
