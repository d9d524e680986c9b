/**
 * Shared assertions and request builders for the gateway-core tests (apps, auth, payments,
 * idempotency, operations).
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { sign, type HttpResult } from './http.js';

export const TEXT_PLAIN = 'text/plain; charset=utf-8';
export const HEX32 = /^[0-9a-f]{32}$/;
/** RFC 3339 in UTC, as the gateway writes it (toISOString). */
export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** An error answer: exact status, exact plain-text body, plain-text content type. */
export function assertError(res: HttpResult, status: number, body: string): void {
  assert.equal(res.status, status, `expected ${status} ${body}, got ${res.status} ${res.text}`);
  assert.equal(res.text, body);
  assert.equal(res.headers.get('content-type'), TEXT_PLAIN);
}

export function assertStatus(res: HttpResult, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status} ${res.text}`);
}

export function assertTimestamp(value: unknown): void {
  assert.equal(typeof value, 'string');
  assert.match(value as string, RFC3339_UTC);
  assert.ok(!Number.isNaN(Date.parse(value as string)), `${String(value)} parses as a date`);
}

/** Runs one query on a short-lived connection to the given database. */
export async function sql<R extends pg.QueryResultRow = Record<string, unknown>>(
  databaseUrl: string,
  text: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

export async function count(databaseUrl: string, text: string, params: unknown[] = []) {
  const rows = await sql<{ n: number }>(
    databaseUrl,
    `SELECT count(*)::int AS n FROM ${text}`,
    params,
  );
  return rows[0]?.n ?? 0;
}

/** A valid create-payment body for IDR qris on idr_psp; fields override. */
export function paymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_user_id: 'user-1',
    email: 'buyer@example.com',
    amount_minor: 15000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example.com/return',
    ...overrides,
  };
}

export interface RawSignedOptions {
  method?: string;
  path?: string;
  body?: string;
  key?: string;
  secret?: string;
  /** Defaults to now, in seconds. */
  timestamp?: string;
  /** What goes into the canonical string, when it must differ from the request. */
  signedMethod?: string;
  signedPath?: string;
  signedBody?: string;
  /** Headers to leave out entirely. */
  omit?: string[];
  headers?: Record<string, string>;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * A /v1 request whose every signing input can be tampered with, to test docs/api.md#request-signing rules
 * one by one. Signing uses the independent implementation of test/helpers/http.ts.
 */
export async function rawSigned(
  baseUrl: string,
  app: { api_key: string; signing_secret: string },
  o: RawSignedOptions = {},
): Promise<HttpResult> {
  const method = o.method ?? 'GET';
  const path = o.path ?? '/v1/payments/' + '0'.repeat(32);
  const body = o.body ?? '';
  const ts = o.timestamp ?? String(nowSeconds());
  const signature = sign(
    o.secret ?? app.signing_secret,
    ts,
    o.signedMethod ?? method,
    o.signedPath ?? path.split('?')[0] ?? path,
    o.signedBody ?? body,
  );
  const headers: Record<string, string> = {
    'X-PAY-Key': o.key ?? app.api_key,
    'X-PAY-Timestamp': ts,
    'X-PAY-Signature': signature,
    ...(body !== '' ? { 'Content-Type': 'application/json' } : {}),
    ...o.headers,
  };
  for (const name of o.omit ?? []) delete headers[name];
  const res = await fetch(baseUrl + path, {
    method,
    headers,
    body: body === '' ? undefined : body,
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
}
