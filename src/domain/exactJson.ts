/**
 * JSON for the operator's money figures. A sum of minor units (a bigint) is written as a
 * string of its decimal digits, at every size: a JSON number past 2^53 is silently rounded
 * by most readers (JavaScript, and any that parse numbers as doubles), and a field whose type
 * changed with its size would break a client only on the day the sum grows. See docs/api.md.
 */
export function exactJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
