import { randomBytes } from 'node:crypto';

/**
 * JSON for the operator's money figures (decisions D14, docs/api.md#money): a sum of minor
 * units is a bigint and is written as a JSON integer with its exact digits at every size.
 * JSON.stringify cannot write a bigint as a number, and going through a JS number would
 * round anything past 2^53, so each bigint becomes a placeholder string that is then
 * replaced in the text by its digits. A per-call nonce marks the placeholders, so no string
 * in the data (an app name) can be mistaken for one.
 */
export function exactJson(value: unknown): string {
  const nonce = randomBytes(8).toString('hex');
  let spliced = false;
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    spliced = true;
    return `${nonce}:${v.toString()}`;
  });
  if (!spliced) return text;
  return text.replace(new RegExp(`"${nonce}:(-?\\d+)"`, 'g'), '$1');
}
