import { decryptSecret } from '../auth/crypto.js';
import type { Config } from '../config.js';
import { claimDueDeliveries, DELIVERY_CHANNEL, type ClaimedDelivery } from '../db/deliveries.js';
import type { Listener } from '../db/listener.js';
import type { Pool } from '../db/pool.js';
import { deadDeliveries, deliveryAttempts, deliveryDuration } from '../metrics.js';
import { retryDelayMs, verdict } from './schedule.js';
import type { WebhookNetwork } from './network.js';
import { AttemptRecorder } from './recorder.js';
import { WebhookSender, type SendResult } from './sender.js';
import { signWebhook } from './signer.js';

/**
 * How long a finished attempt's record may wait for a claim to ride on (see recordQueued):
 * under a steady flow of events the next commit's NOTIFY starts that claim sooner.
 */
export const RECORD_LINGER_MS = 20;

/** What the worker takes from the process. */
export interface DeliveryWorkerDeps {
  /**
   * Commits asynchronously (db/pool.ts) and plans each statement once (gateway.ts). The
   * claims run on it: a claim that takes deliveries turns synchronous commit on for itself,
   * so its commit is their durability barrier (db/deliveries.ts claimDueDeliveries,
   * docs/adr/0002); one that only records attempts waits for no flush.
   */
  deliveryPool: Pool;
  log: { error(obj: object, msg: string): void };
  /** Wake-ups: a NOTIFY at each commit of a delivery, and a reset when LISTEN was lost. */
  listener: Pick<Listener, 'on' | 'onReset'>;
  config: Pick<Config, 'delivery' | 'endpoints' | 'masterKey' | 'allowPrivateWebhookTargets'>;
  webhookNetwork: WebhookNetwork;
  /** The clock that stamps X-PAY-Timestamp. */
  now(): number;
}

/**
 * Delivers outbound webhooks (docs/api.md#delivery-and-retries). Any number of instances run one each: claims
 * take turns across instances, so each endpoint's cap holds for all of them, and lease their
 * rows (db/deliveries.ts), so a worker that dies mid-delivery loses its claim when the lease
 * runs out and another instance delivers (at least once).
 */
export class DeliveryWorker {
  private running = false;
  private inFlight = new Set<Promise<void>>();
  /** Attempts not yet answered; a finished one holds no slot while its record waits. */
  private sending = 0;
  /** This worker's attempts in flight per target (endpoint, or app for its default one). */
  private readonly perTarget = new Map<string, number>();
  /** The last claim took as many deliveries as it had free slots: more may be due. */
  private lastClaimFull = false;
  /** An attempt of a target at its cap in this worker just ended: its rows may be due now. */
  private capFreed = false;
  private linger: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  private poked = false;
  private loopDone: Promise<void> | null = null;
  private readonly secrets = new Map<string, string>();
  private readonly leaseMs: number;
  private readonly sender: WebhookSender;
  private readonly recorder: AttemptRecorder;

  constructor(
    private readonly gw: DeliveryWorkerDeps,
    private readonly concurrency = 32,
    private readonly pollMs = 1000,
  ) {
    this.leaseMs = gw.config.delivery.timeoutMs * 2 + 5000;
    this.sender = new WebhookSender(gw.webhookNetwork);
    this.recorder = new AttemptRecorder(gw.deliveryPool, concurrency);
  }

  start(): void {
    this.running = true;
    // A NOTIFY at commit wakes the worker; the poll covers notifications lost with the connection.
    this.gw.listener.on(DELIVERY_CHANNEL, () => this.poke());
    this.gw.listener.onReset(() => this.poke());
    // Finished attempts are recorded by the next claim's statement (db/deliveries.ts).
    this.recorder.fold(() => this.recordQueued());
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.linger) clearTimeout(this.linger);
    this.poke();
    await this.loopDone;
    // No claim follows: what the attempts still in flight finish with is written alone.
    this.recorder.unfold();
    await Promise.allSettled([...this.inFlight]);
    this.sender.close();
  }

  /**
   * A finished attempt's record is queued. It is written by the next claim; that claim starts
   * at once when the freed slot may be wanted (the last claim was full, or the attempt's
   * target was at its cap), else at the next wake-up (a commit's NOTIFY, a retry coming due)
   * or after RECORD_LINGER_MS, whichever is first: under a steady flow one claim per event
   * then takes the new delivery and records the previous attempt. Until that commit the
   * delivery stays pending under its lease (a crash sends it again, never loses it).
   */
  private recordQueued(): void {
    if (this.lastClaimFull || this.capFreed || !this.running) {
      this.capFreed = false;
      this.poke();
      return;
    }
    this.linger ??= setTimeout(() => {
      this.linger = null;
      this.poke();
    }, RECORD_LINGER_MS);
  }

  private poke(): void {
    this.poked = true;
    this.wake?.();
  }

  /** Sleeps until poked or ms pass; a poke since the last claim ends it at once. */
  private sleep(ms: number): Promise<void> {
    if (this.poked) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async loop(): Promise<void> {
    while (this.running) {
      // Notifications that arrive while this claim runs must not be lost.
      this.poked = false;
      const free = this.concurrency - this.sending;
      // The attempts finished since the last claim are recorded by this one: one statement,
      // one commit for both. Until it commits they are pending under their lease, so a crash
      // before it sends them again (at least once, never lost).
      const batch = this.recorder.take();
      if (this.linger) {
        clearTimeout(this.linger);
        this.linger = null;
      }
      // More than one statement's worth: the rest goes with the next claim, at once.
      if (this.recorder.queued > 0) this.poked = true;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0 || batch.attempts.length > 0) {
        try {
          // An event must be on disk before the app hears of it (db/pool.ts): a claim that
          // took deliveries commits synchronously, and its commit flushes them. A claim that
          // fails to commit sends nothing; its rows are retried after their lease.
          claimed = await claimDueDeliveries(
            this.gw.deliveryPool,
            Math.max(free, 0),
            this.leaseMs,
            this.gw.config.endpoints.concurrency,
            batch.attempts,
          );
          this.recorder.written(batch);
        } catch (err) {
          if (this.running) this.gw.log.error({ err }, 'delivery claim failed');
          // The attempts are not lost with the claim: written again one at a time.
          if (batch.attempts.length > 0) await this.recorder.failed(batch);
        }
      }
      this.lastClaimFull = claimed.length >= free;
      for (const d of claimed) {
        this.sending++;
        const target = d.endpoint_id ?? d.app_id;
        this.perTarget.set(target, (this.perTarget.get(target) ?? 0) + 1);
        // A finished attempt frees its slot and wakes the loop through its record (above);
        // the recorded promise only tells stop() that nothing is left.
        const p = this.attempt(d)
          .catch((err: unknown) =>
            this.gw.log.error(
              { delivery_id: d.id, error: err instanceof Error ? err.name : typeof err },
              'delivery attempt failed',
            ),
          )
          .finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
      }
      // A short claim does not mean nothing is due: the per-endpoint cap may have left rows of
      // a saturated endpoint behind, and the next claim skips that endpoint. Only an empty
      // claim sleeps (until a commit, a finished attempt or the poll).
      if (claimed.length === 0) await this.sleep(this.pollMs);
    }
  }

  private webhookSecret(sealed: string): string {
    let s = this.secrets.get(sealed);
    if (s === undefined) {
      s = decryptSecret(this.gw.config.masterKey, sealed);
      if (this.secrets.size > 10_000) this.secrets.clear();
      this.secrets.set(sealed, s);
    }
    return s;
  }

  /**
   * Signing (docs/api.md#webhook-signing): during a rotation window X-PAY-Signature stays
   * under the previous secret, so receivers that still hold it keep verifying, and
   * X-PAY-Signature-Next carries the signature under the new one.
   */
  private signatures(d: ClaimedDelivery, ts: string): Record<string, string> {
    const current = signWebhook(this.webhookSecret(d.secret_enc), ts, d.body);
    const inWindow =
      d.previous_secret_enc !== null &&
      d.rotates_at !== null &&
      d.rotates_at.getTime() > this.gw.now();
    if (!inWindow) return { 'x-pay-signature': current };
    return {
      'x-pay-signature': signWebhook(
        this.webhookSecret(d.previous_secret_enc as string),
        ts,
        d.body,
      ),
      'x-pay-signature-next': current,
    };
  }

  /**
   * The attempt's answer. `dead` when it cannot ever be sent: the endpoint is disabled or
   * the event body cannot be read. An endpoint secret this instance cannot read (sealed
   * under another MASTER_KEY, or damaged) is a failed attempt, retried on the schedule.
   * Either way no request is made and the error says which, never the secret.
   */
  private async send(d: ClaimedDelivery): Promise<SendResult & { dead?: true }> {
    // No request made: retried on the schedule, or `dead` when it can never be sent.
    const unsent = (error: string): SendResult => ({
      statusCode: null,
      error,
      durationMs: 0,
      responseBody: null,
    });
    const none = (error: string): SendResult & { dead: true } => ({ ...unsent(error), dead: true });
    if (d.endpoint_disabled) return none('endpoint disabled');
    if (d.body_unreadable !== null) return none(`event body unreadable: ${d.body_unreadable}`);
    // Retried: the app may set its webhook_url meanwhile.
    if (!d.url) return unsent('app has no webhook_url');
    const ts = String(Math.floor(this.gw.now() / 1000));
    let signatures: Record<string, string>;
    try {
      signatures = this.signatures(d, ts);
    } catch {
      // Retried, not dead: an instance started with another MASTER_KEY would otherwise
      // dead-letter every delivery it claims while the others could send them.
      return unsent('endpoint secret unreadable');
    }
    return this.sender.post(
      d.url,
      {
        'content-type': 'application/json',
        'x-pay-timestamp': ts,
        ...signatures,
        'x-pay-event-id': d.event_id,
        'user-agent': 'Paygate-Webhooks/1',
      },
      d.body,
      this.gw.config.delivery.timeoutMs,
      d.mode === 'live' && !this.gw.config.allowPrivateWebhookTargets,
    );
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const cfg = this.gw.config.delivery;
    const startedAt = new Date();
    let result: SendResult & { dead?: true };
    try {
      result = await this.send(d);
    } catch (err) {
      // Nothing may escape an attempt (an unhandled rejection ends the process, and every
      // instance would then die on this delivery after its lease): the attempt fails with a
      // plain error, and is tried again.
      this.gw.log.error(
        { delivery_id: d.id, error: err instanceof Error ? err.name : typeof err },
        'delivery attempt failed before an answer',
      );
      result = { statusCode: null, error: 'internal error', durationMs: 0, responseBody: null };
    } finally {
      this.sending--;
      const target = d.endpoint_id ?? d.app_id;
      const n = this.perTarget.get(target) ?? 1;
      if (n <= 1) this.perTarget.delete(target);
      else this.perTarget.set(target, n - 1);
      // This target was at its cap here: deliveries of it may be due and were left behind.
      if (n >= this.gw.config.endpoints.concurrency) this.capFreed = true;
    }
    const v = result.dead ? 'dead' : verdict(result.statusCode, d.attempts, cfg.maxAttempts);
    const delayMs = v === 'retry' ? retryDelayMs(cfg, d.attempts) : 0;
    deliveryAttempts.inc({ verdict: v });
    deliveryDuration.observe(result.durationMs / 1000);
    try {
      await this.recorder.record({
        deliveryId: d.id,
        verdict: v,
        statusCode: result.statusCode,
        error: result.error,
        responseBody: result.responseBody,
        delayMs,
        attempt: d.attempts,
        startedAt,
        durationMs: result.durationMs,
      });
    } catch (err) {
      // The lease runs out and the delivery is attempted again: at least once, never lost.
      this.gw.log.error({ err, delivery_id: d.id }, 'recording a delivery attempt failed');
      return;
    }
    // A retry due before the next poll wakes this worker itself.
    if (v === 'retry' && delayMs < this.pollMs) setTimeout(() => this.poke(), delayMs + 5).unref();
    if (v === 'dead') {
      deadDeliveries.inc();
      this.gw.log.error(
        {
          delivery_id: d.id,
          event_id: d.event_id,
          app_id: d.app_id,
          endpoint_id: d.endpoint_id,
          attempts: d.attempts,
          status_code: result.statusCode,
          error: result.error,
        },
        'outbound webhook delivery dead',
      );
    }
  }
}
