import type { Pool } from './db/pool.js';

/**
 * What the simulators take from the process that mounts them (the gateway, or a process of
 * their own): nothing more, so they stay a part apart from the core.
 */
export interface SimulatorHost {
  /**
   * Simulator state (their schema paygate_sim, simulators/db/) lives in this database, shared
   * by every instance.
   */
  pool: Pool;
  /**
   * Test-mode credentials are derived from the master key, the same ones the adapters use;
   * a lost answer is held past the gateway's provider timeout.
   */
  config: { masterKey: Buffer; providerTimeoutMs: number };
  /**
   * internal: where the simulators' API is reached (the providers' base URLs); public: the
   * base of checkout pages; gateway: where the gateway's /webhooks are, when the simulators
   * run apart from it (their own process); mounted in the gateway, that is internal.
   */
  urls: { internal: string; public: string; gateway?: string };
  log: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
  };
  /** Background sweeps run only while the host is ready. */
  readonly phase: string;
}
