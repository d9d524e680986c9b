/**
 * Polls check until it settles, for state that changes asynchronously (bounded: no test
 * depends on speed). Settled means a value other than undefined, null or false: a check
 * answers "not yet" with any of those, and "done" with true or the value it found, which is
 * returned.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  what = 'the condition',
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
