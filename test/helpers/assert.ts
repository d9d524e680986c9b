/**
 * Shared assertions. A test asserts behaviour: an error is its exact status and exact
 * plain-text body (assertError); a success is its status and the formats of its fields.
 * The core ones live in core.ts for the older tests and are the same functions here.
 */
import assert from 'node:assert/strict';
import { ProviderError } from './drivers/sim.js';

export {
  assertError,
  assertStatus,
  assertTimestamp,
  HEX32,
  RFC3339_UTC,
  TEXT_PLAIN,
} from './core.js';

/** Exact status and exact body of an answer read as text, whatever its content type. */
export function assertText(res: { status: number; text: string }, status: number, text: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.text, text);
}

/** The adapter call refused with a ProviderError (the provider said no, or did not answer). */
export async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ProviderError, String(err));
    return err;
  }
  assert.fail('expected a ProviderError');
}
