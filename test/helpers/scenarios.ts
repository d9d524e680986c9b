/**
 * What the test-scenario tests (docs/testing.md) observe of one payment: the outbound events
 * the gateway enqueued and the app received, the provider notifications it archived, and
 * simulator actions.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before } from 'node:test';
import type { AppWithSecrets } from './contract.js';
import { assertStatus, sql } from './core.js';
import { simAct, type ProviderSlug } from './drivers/sim.js';
import { startWithReceiver, type GatewayWithReceiver } from './gateway.js';
import { eventually } from './eventually.js';

/** Short, so a registration_timeout or refund_timeout fails within the test. */
export const PROVIDER_TIMEOUT_MS = 1500;

/**
 * The gateway of a scenario test file: started before the file's tests (with the short
 * provider timeout and an app whose webhooks reach a receiver) and stopped after them. Call
 * it at the file's top level; read its fields inside tests.
 */
export function scenarioGateway(shop: string): GatewayWithReceiver {
  let started: GatewayWithReceiver | undefined;
  before(async () => {
    started = await startWithReceiver(
      { PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) },
      { name: shop },
    );
  });
  after(() => started?.stop());
  const current = (): GatewayWithReceiver => {
    assert.ok(started, 'the scenario gateway has started');
    return started;
  };
  return {
    get gw() {
      return current().gw;
    },
    get receiver() {
      return current().receiver;
    },
    get app() {
      return current().app;
    },
    stop: () => current().stop(),
  };
}

export class ScenarioProbe {
  constructor(private readonly setup: () => GatewayWithReceiver) {}

  /** A simulator action as a script calls it; 200 with the gateway's answer. */
  act(provider: ProviderSlug, ref: string, action: string) {
    return simAct(this.setup().gw, provider, ref, action);
  }

  /** Creates a payment (201) and reads back its provider reference. */
  async create(body: object, app: AppWithSecrets = this.setup().app) {
    const res = await this.setup().gw.v1(app, 'POST', '/v1/payments', body);
    assertStatus(res, 201);
    const id = res.json<{ payment_id: string }>().payment_id;
    return { id, ref: (await this.payment(id, app)).provider_ref };
  }

  async payment(id: string, app: AppWithSecrets = this.setup().app) {
    const res = await this.setup().gw.v1(app, 'GET', `/v1/payments/${id}`);
    assertStatus(res, 200);
    return res.json<{
      status: string;
      provider_ref: string;
      last_error: string;
      metadata: Record<string, unknown>;
    }>();
  }

  /** What the gateway enqueued for the app, in order. */
  async outbound(paymentId: string): Promise<string[]> {
    const rows = await sql<{ event_type: string }>(
      this.setup().gw.databaseUrl,
      `SELECT event_type FROM outbound_events WHERE payment_id = $1 ORDER BY created_at, id`,
      [paymentId],
    );
    return rows.map((r) => r.event_type);
  }

  /** What the app's endpoint received (distinct events, each signed with the app's secret). */
  delivered(paymentId: string, secret: string): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const r of this.setup().receiver.received) {
      const b = JSON.parse(r.body) as { event: string; payment_id: string };
      const id = String(r.headers['x-pay-event-id']);
      if (b.payment_id !== paymentId || seen.has(id)) continue;
      const mac = createHmac('sha256', secret)
        .update(`${String(r.headers['x-pay-timestamp'])}.${r.body}`)
        .digest('hex');
      assert.equal(r.headers['x-pay-signature'], mac, 'signed with the app webhook secret');
      seen.add(id);
      out.push(b.event);
    }
    return out;
  }

  /** Waits until the app received exactly `events` (and nothing follows); the outbox agrees. */
  async expectDelivered(
    paymentId: string,
    events: string[],
    app: AppWithSecrets = this.setup().app,
  ): Promise<void> {
    await eventually(
      async () => this.delivered(paymentId, app.webhook_secret).length >= events.length,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(this.delivered(paymentId, app.webhook_secret), events);
    assert.deepEqual(await this.outbound(paymentId), events);
  }

  /** The provider notifications the gateway archived for the payment, oldest first. */
  async inbound<T>(paymentId: string): Promise<T[]> {
    const res = await this.setup().gw.admin('GET', `/admin/inbound_events?payment_id=${paymentId}`);
    assertStatus(res, 200);
    const events = res.json<{ events: { raw_body: string }[] }>().events;
    return events.map((e) => JSON.parse(e.raw_body) as T).reverse();
  }
}
