import assert from 'node:assert/strict';
import type { AppWithSecrets } from './contract.js';
import { simAct, type ProviderSlug } from './drivers/sim.js';
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
  /** wallet_psp in a second currency: a provider's day can hold several. */
  walletUsd: (amount: number) => ({
    external_user_id: 'buyer-4',
    email: 'wallet-usd@example.com',
    amount_minor: amount,
    currency: 'USD',
    method: 'wallet_psp',
    return_url: 'https://shop.example/back',
  }),
};

export type Kind = keyof typeof BODIES;
const SLUG: Record<Kind, ProviderSlug> = {
  idr: 'idr_psp',
  va: 'idr_psp',
  card: 'card_psp',
  wallet: 'wallet_psp',
  walletUsd: 'wallet_psp',
};

export async function createPayment(
  gw: TestGateway,
  app: AppWithSecrets,
  kind: Kind,
  amount: number,
  metadata: Record<string, unknown> = {},
): Promise<CreatedPayment> {
  const base: { metadata?: Record<string, unknown> } & object = BODIES[kind](amount);
  const body =
    Object.keys(metadata).length > 0
      ? { ...base, metadata: { ...base.metadata, ...metadata } }
      : base;
  const res = await gw.v1(app, 'POST', '/v1/payments', body);
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
  return simAct(gw, SLUG[kind], providerRef, action, query);
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

/**
 * A payment whose provider never notifies (docs/testing.md, test_scenario lost_webhook): the
 * simulator's buyer actions (simAction) change the provider's state and the status API
 * reports it, but no notification is sent, so a test posts its own notifications (duplicated,
 * concurrent, reordered) about a state the provider really holds. Notifications of wallet_psp
 * and idr_psp are hints the gateway confirms with the provider's API before money moves.
 */
export function lostWebhookPayment(
  gw: TestGateway,
  app: AppWithSecrets,
  kind: Kind,
  amount: number,
  metadata: Record<string, unknown> = {},
): Promise<CreatedPayment> {
  return createPayment(gw, app, kind, amount, { ...metadata, test_scenario: 'lost_webhook' });
}

/** simAction on a lost_webhook payment: the provider's state changes, nothing is notified. */
export async function silentAction(
  gw: TestGateway,
  kind: Kind,
  providerRef: string,
  action: string,
) {
  const r = await simAction(gw, kind, providerRef, action);
  assert.deepEqual(r, {
    gateway_status: 0,
    gateway_body: 'notification not sent (test_scenario lost_webhook)',
  });
}

/**
 * A refund made at idr_psp outside the gateway (the provider's dashboard calls the same Core
 * API), with the test-mode server key. Answers the provider's status and body.
 */
export async function idrProviderRefund(
  gw: TestGateway,
  serverKey: string,
  orderId: string,
  body: { refund_key: string; amount?: number; reason?: string },
) {
  const res = await fetch(`${gw.url}/sim/idr_psp/v2/${orderId}/refund`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${serverKey}:`).toString('base64')}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
