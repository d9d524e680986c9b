import assert from 'node:assert/strict';
import type { AppWithSecrets } from '../../src/services/apps.js';
import type { TestGateway } from './gateway.js';

export interface CreatedPayment {
  id: string;
  providerRef: string;
}

const BODIES = {
  idr: (amount: number) => ({
    external_user_id: 'buyer-1',
    email: 'buyer@example.com',
    amount_minor: amount,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
    metadata: { order: 'O-1' },
  }),
  va: (amount: number) => ({
    external_user_id: 'buyer-1',
    email: 'buyer@example.com',
    amount_minor: amount,
    currency: 'IDR',
    method: 'va_bca',
    return_url: 'https://shop.example/back',
  }),
  card: (amount: number) => ({
    external_user_id: 'buyer-2',
    email: 'card@example.com',
    amount_minor: amount,
    currency: 'USD',
    method: 'card_psp',
    return_url: 'https://shop.example/back',
    metadata: { card_psp_product_id: 'prod_basic', plan: 'basic' },
  }),
  wallet: (amount: number) => ({
    external_user_id: 'buyer-3',
    email: 'wallet@example.com',
    amount_minor: amount,
    currency: 'EUR',
    method: 'wallet_psp',
    return_url: 'https://shop.example/back',
  }),
};

export type Kind = keyof typeof BODIES;
const SLUG: Record<Kind, string> = {
  idr: 'idr_psp',
  va: 'idr_psp',
  card: 'card_psp',
  wallet: 'wallet_psp',
};

export async function createPayment(
  gw: TestGateway,
  app: AppWithSecrets,
  kind: Kind,
  amount: number,
): Promise<CreatedPayment> {
  const res = await gw.v1(app, 'POST', '/v1/payments', BODIES[kind](amount));
  assert.equal(res.status, 201, res.text);
  const id = res.json<{ payment_id: string }>().payment_id;
  const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  return { id, providerRef: read.json<{ provider_ref: string }>().provider_ref };
}

/** Drives the provider simulator like a buyer (docs/api.md#test-mode) and returns what the gateway answered. */
export async function simAction(
  gw: TestGateway,
  kind: Kind,
  providerRef: string,
  action: string,
  query = '',
) {
  const res = await fetch(`${gw.url}/sim/${SLUG[kind]}/payments/${providerRef}/${action}${query}`, {
    method: 'POST',
  });
  const text = await res.text();
  assert.equal(res.status, 200, `sim ${action}: ${res.status} ${text}`);
  return JSON.parse(text) as { gateway_status: number; gateway_body: string };
}

export async function paidPayment(
  gw: TestGateway,
  app: AppWithSecrets,
  kind: Kind,
  amount: number,
  query = '',
): Promise<CreatedPayment> {
  const p = await createPayment(gw, app, kind, amount);
  const r = await simAction(gw, kind, p.providerRef, 'pay', query);
  assert.equal(r.gateway_status, 200, r.gateway_body);
  return p;
}
