/**
 * Provider faults on demand (docs/testing.md): how a simulator delivers its notifications
 * and answers its API under a payment's test_scenario. The scenario travels on the
 * provider's wire like any merchant data (idr_psp: custom_field1), so the simulator can
 * also run as its own process.
 */
import type { FastifyReply } from 'fastify';
import { isTestScenario, type TestScenario } from '../domain/testScenarios.js';
import type { ActionResult, SimStore } from './common.js';
import type { SimulatorHost } from './host.js';

/**
 * How long delayed_webhook holds each notification, and how long refund_pending leaves a
 * refund pending before it settles.
 */
export const FAULT_DELAY_MS = 3_000;

export function scenarioOf(value: unknown): TestScenario | null {
  return isTestScenario(value) ? value : null;
}

type Send = () => Promise<ActionResult>;

/**
 * Notifications and held answers of one gateway's simulators. Delayed notifications wait in
 * this process's memory: a restart drops them, which the gateway then meets as a lost
 * notification (its reconciler asks the provider).
 */
export class FaultRunner {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly gw: SimulatorHost) {}

  /** Runs fn after ms; errors are logged, as a provider logs a failed delivery. */
  later(ms: number, what: string, fn: () => Promise<unknown>): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn().catch((err: unknown) => this.gw.log.warn({ err }, `simulator: ${what} failed`));
    }, ms);
    this.timers.add(t);
  }

  /**
   * Sends the notifications of one provider event the way the scenario says, in order.
   * finals are the notifications themselves; intermediate, when the flow has one, an earlier
   * status (pending, confirmed) that out_of_order sends after them. Answers what the gateway
   * said to the last one sent now, or gateway_status 0 with the reason when none was sent now.
   */
  async deliver(
    scenario: TestScenario | null,
    finals: Send | Send[],
    intermediate?: Send,
  ): Promise<ActionResult> {
    const sends = Array.isArray(finals) ? finals : [finals];
    const all = async (copies: number) => {
      let result: ActionResult = { gateway_status: 0, gateway_body: '' };
      for (const send of sends) for (let i = 0; i < copies; i++) result = await send();
      return result;
    };
    switch (scenario) {
      case 'duplicate_webhook':
        return all(2);
      case 'delayed_webhook':
        this.later(FAULT_DELAY_MS, 'delayed notification', () => all(1));
        return {
          gateway_status: 0,
          gateway_body: `notification delayed by ${FAULT_DELAY_MS} ms (test_scenario delayed_webhook)`,
        };
      case 'out_of_order': {
        const last = await all(1);
        return intermediate ? intermediate() : last;
      }
      case 'lost_webhook':
        return {
          gateway_status: 0,
          gateway_body: 'notification not sent (test_scenario lost_webhook)',
        };
      default:
        return all(1);
    }
  }

  /**
   * The provider did the work but its answer is lost: the socket stays silent past the
   * gateway's provider timeout, then closes without a response.
   */
  async loseAnswer(reply: FastifyReply): Promise<FastifyReply> {
    reply.hijack();
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, this.gw.config.providerTimeoutMs + 1_000);
      this.timers.add(t);
      // The caller gave up (its timeout): nothing left to hold.
      reply.raw.once('close', () => {
        clearTimeout(t);
        this.timers.delete(t);
        resolve();
      });
    });
    reply.raw.destroy();
    return reply;
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

const runners = new WeakMap<SimulatorHost, FaultRunner>();

/** The one runner of this gateway's simulators (closed with them). */
export function faultsFor(gw: SimulatorHost): FaultRunner {
  let r = runners.get(gw);
  if (!r) {
    r = new FaultRunner(gw);
    runners.set(gw, r);
  }
  return r;
}

/**
 * Marks a fault of a stored provider object as played, under the object's row lock: true
 * exactly once per (object, fault), so a retried request gets the normal answer.
 */
export async function playOnce<T extends { faults_played?: string[] }>(
  store: SimStore<T>,
  id: string,
  fault: string,
): Promise<boolean> {
  let first = false;
  await store.update(id, (cur) => {
    if (cur.faults_played?.includes(fault)) return null;
    first = true;
    return { ...cur, faults_played: [...(cur.faults_played ?? []), fault] };
  });
  return first;
}

export const REGISTRATION_5XX_TEXT =
  'An unexpected error occurred on the provider side (test_scenario registration_5xx)';

/**
 * registration_timeout / registration_5xx: the fault the first answer to a registration
 * plays (the provider object is stored either way); null for every later one, so a retried
 * registration gets the original object.
 */
export async function registrationFault<T extends { faults_played?: string[] }>(
  store: SimStore<T>,
  id: string,
  scenario: TestScenario | null,
): Promise<'registration_timeout' | 'registration_5xx' | null> {
  if (scenario !== 'registration_timeout' && scenario !== 'registration_5xx') return null;
  return (await playOnce(store, id, 'registration')) ? scenario : null;
}
