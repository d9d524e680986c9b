import { randomBytes } from 'node:crypto';

/**
 * JSON with exact integers: sums of minor units are bigints in the reports, and one past
 * 2^53 must not be rounded. Safe values become ordinary numbers; larger ones are written as
 * their exact digits (JSON numbers have no size limit). A per-call nonce marks the
 * placeholders, so no string in the data (an app name) can be mistaken for one.
 */
export function exactJson(value: unknown): string {
  const nonce = randomBytes(8).toString('hex');
  let big = false;
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) {
      return Number(v);
    }
    big = true;
    return `${nonce}:${v.toString()}`;
  });
  if (!big) return text;
  return text.replace(new RegExp(`"${nonce}:(-?\\d+)"`, 'g'), '$1');
}
