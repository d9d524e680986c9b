/**
 * Provider text made storable (docs/api.md#text-in-request-bodies). A provider's error or
 * status text is what the provider said, not input the gateway may refuse: a NUL in it
 * (PostgreSQL text and jsonb cannot hold one) or an unpaired UTF-16 surrogate (jsonb refuses
 * one, and node-postgres would silently change it in text) must not turn the provider's
 * event into an error it would redeliver forever. Each becomes U+FFFD, the replacement
 * character, so the stored text still shows where something unreadable was; the raw body of
 * the webhook is archived as bytes, unchanged.
 */

const UNPAIRED_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const REPLACEMENT_CHARACTER = '\uFFFD';

/** `s` with each NUL and each unpaired surrogate replaced by U+FFFD. */
export function storableText(s: string): string {
  return s
    .replaceAll('\u0000', REPLACEMENT_CHARACTER)
    .replace(UNPAIRED_SURROGATE, REPLACEMENT_CHARACTER);
}
