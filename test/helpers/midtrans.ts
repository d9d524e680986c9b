import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

/**
 * midtrans-client, Midtrans's official Node library, as the provider's side of the wire in
 * tests. It ships no types: the few calls the tests make are typed here. Its base URLs are
 * fixed per environment (ApiConfig), so each client's getters are pointed at the simulator.
 */
type Body = Record<string, unknown>;

interface Transaction {
  status(id: string): Promise<Body>;
  cancel(id: string): Promise<Body>;
  expire(id: string): Promise<Body>;
  refund(id: string, parameter?: Body): Promise<Body>;
  refundDirect(id: string, parameter?: Body): Promise<Body>;
  notification(notification: Body | string): Promise<Body>;
}

interface ApiConfig {
  getCoreApiBaseUrl(): string;
  getSnapApiBaseUrl(): string;
}

export interface MidtransCoreApi {
  apiConfig: ApiConfig;
  charge(parameter: Body): Promise<Body>;
  transaction: Transaction;
}

export interface MidtransSnap {
  apiConfig: ApiConfig;
  createTransaction(parameter: Body): Promise<{ token: string; redirect_url: string }>;
  transaction: Transaction;
}

export interface MidtransErrorShape extends Error {
  httpStatusCode: number | string | null;
  ApiResponse: unknown;
}

interface MidtransModule {
  CoreApi: new (o: {
    isProduction: boolean;
    serverKey: string;
    clientKey: string;
  }) => MidtransCoreApi;
  Snap: new (o: { isProduction: boolean; serverKey: string; clientKey: string }) => MidtransSnap;
  MidtransError: new (...args: unknown[]) => MidtransErrorShape;
}

const midtrans = createRequire(import.meta.url)('midtrans-client') as MidtransModule;

/** Clients talking to `base` (the simulator's /sim/idr_psp) as to the provider's hosts. */
export function midtransClients(base: string, serverKey: string) {
  const opts = { isProduction: false, serverKey, clientKey: '' };
  const core = new midtrans.CoreApi(opts);
  const snap = new midtrans.Snap(opts);
  for (const c of [core, snap]) {
    c.apiConfig.getCoreApiBaseUrl = () => base;
    c.apiConfig.getSnapApiBaseUrl = () => `${base}/snap/v1`;
  }
  return { core, snap };
}

/** The library's rejection of a call: its MidtransError, with the HTTP status and body. */
export async function midtransError(p: Promise<unknown>): Promise<MidtransErrorShape> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof midtrans.MidtransError, String(err));
    return err;
  }
  assert.fail('expected a MidtransError');
}

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The fields Midtrans documents on every transaction answer (charge, status, notification),
 * with their formats: amounts as "10000.00" strings, Jakarta times, string status codes.
 */
export function assertTransactionFields(
  b: Body,
  expect: { orderId: string; gross: number; merchantId?: boolean },
) {
  assert.match(String(b.status_code), /^\d{3}$/);
  assert.equal(typeof b.status_code, 'string');
  assert.equal(typeof b.status_message, 'string');
  assert.match(String(b.transaction_id), UUID);
  assert.equal(b.order_id, expect.orderId);
  assert.equal(b.gross_amount, `${expect.gross}.00`);
  assert.equal(b.currency, 'IDR');
  assert.ok(['qris', 'bank_transfer', 'echannel'].includes(String(b.payment_type)));
  assert.match(String(b.transaction_time), TIME);
  assert.equal(typeof b.transaction_status, 'string');
  assert.equal(b.fraud_status, 'accept');
  // Charge, status and notifications name the merchant; cancel and expire answers do not.
  if (expect.merchantId !== false) assert.match(String(b.merchant_id), /^G\d{9}$/);
  if (b.expiry_time !== undefined) assert.match(String(b.expiry_time), TIME);
}
