import { ApiError } from '../domain/errors.js';
import type { Pool } from '../db/pool.js';
import type { ProviderRegistry } from '../providers/registry.js';

/** What a use case needs to apply one provider event (services/inbound.ts dispatches). */
export interface ProviderEventDeps {
  pool: Pool;
  /** Writes that end a request commit synchronously (db/pool.ts). */
  durablePool: Pool;
  providers: ProviderRegistry;
  providerTimeoutMs: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** The gateway's clock (signature age). */
  now(): number;
  /**
   * The archive row of the provider event being applied, when it carries one payment
   * outcome (services/inbound.ts): the finalization records the event's outcome on it.
   */
  inboundArchive?: { id: number; eventType: string };
}

/**
 * What applying one provider event did: `changed` (a state moved, an event was enqueued),
 * `none` (nothing to do) or `already_finalized` (the payment was already terminal), and the
 * outcome the inbound archive records.
 */
export interface Applied {
  effect: 'changed' | 'none' | 'already_finalized';
  outcome: string;
  /** The outcome is already on the event's archive row (written with the change). */
  recorded?: boolean;
}

export const applied = (effect: Applied['effect'], outcome: string): Applied => ({
  effect,
  outcome,
});

export const ALREADY_FINALIZED = applied('already_finalized', 'already_finalized');

/** An event the gateway refuses, with the outcome its archive row records. */
export class EventRejected extends ApiError {
  constructor(
    error: ApiError,
    readonly outcome: string,
  ) {
    super(error.kind, error.body, error.headers);
  }
}
