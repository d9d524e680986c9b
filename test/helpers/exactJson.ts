/**
 * A big-integer-aware JSON reader for tests (docs/api.md#money): an integer literal past
 * 2^53 − 1 becomes a bigint with its exact digits, every other value is read as JSON.parse
 * reads it, so a test can tell a number from a string and compare sums past 2^63 exactly.
 */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

export function parseExactJson<T>(text: string): T {
  // A marker no JSON string of the tests' data starts with; strings are matched whole, so
  // digits inside them are never taken for numbers.
  const marker = '\u0000bigint:';
  const quoted = text.replace(TOKEN, (token) =>
    token.startsWith('"') || !/^-?\d+$/.test(token) || Number.isSafeInteger(Number(token))
      ? token
      : JSON.stringify(marker + token),
  );
  return JSON.parse(quoted, (_k, v: unknown) =>
    typeof v === 'string' && v.startsWith(marker) ? BigInt(v.slice(marker.length)) : v,
  ) as T;
}

/** The JSON value of an exact integer as parseExactJson reads it back. */
export function exactValue(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(n)
    : n;
}
