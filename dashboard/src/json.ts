/**
 * JSON.parse for the admin API's answers, except that an integer past 2^53 − 1 is kept as a
 * string of its exact digits: report sums are JSON integers of any size (docs/api.md#money),
 * and JSON.parse would silently round one past 2^53. formatMoney formats either form exactly.
 */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

export function parseJsonExact(text: string): unknown {
  // Strings are matched whole, so digits inside them are never taken for numbers.
  return JSON.parse(
    text.replace(TOKEN, (token) =>
      token.startsWith('"') || !/^-?\d+$/.test(token) || Number.isSafeInteger(Number(token))
        ? token
        : `"${token}"`,
    ),
  );
}
