/**
 * The archived webhook body, deflated (issue 29: storage per payment). A provider's
 * notifications repeat the same keys and constant values, so each is deflated against a
 * dictionary of that provider's own samples (its documented notifications, minified): an
 * idr_psp settlement of 649 bytes is kept in about 200.
 *
 * The stored form is named by inbound_events.body_codec (migration 0029): NULL is the body as
 * received, 1 (BODY_DEFLATED_V1) raw deflate with the dictionary below. A dictionary is never
 * changed once rows use it: other samples would be a new codec number beside this one.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { outputChunkFor } from './zlibChunk.js';

export const BODY_DEFLATED_V1 = 1;

const DICTIONARIES_V1: Record<string, Buffer> = {
  idr_psp: Buffer.from(
    '{"va_numbers":[{"va_number":"333333333333333","bank":"bca"}],"transaction_time":"2021-06-2' +
      '3 11:27:20","transaction_status":"settlement","transaction_id":"9aed5972-5b6a-401e-894b-a3' +
      '2c91ed1a3a","status_message":"midtrans payment notification","status_code":"200","signatur' +
      'e_key":"fe5f725ea770c451017e9d6300af72b830a668d2f7d5da9b778ec2c4f9177efe5127d492d9ddfbcf68' +
      '06ea5cd7dc1a7337c674d6139026b28f49ad0ea1ce5107","settlement_time":"2021-06-23 11:27:50","p' +
      'ayment_type":"bank_transfer","payment_amounts":[],"order_id":"0a1b2c3d4e5f60718293a4b5c6d7' +
      'e803","merchant_id":"G141532850","gross_amount":"100000.00","fraud_status":"accept","curre' +
      'ncy":"IDR"}{"transaction_type":"on-us","transaction_time":"2021-06-23 14:02:42","transacti' +
      'on_status":"settlement","transaction_id":"513f1f01-c9da-474c-9fc9-d5c64364b709","status_me' +
      'ssage":"midtrans payment notification","status_code":"200","signature_key":"2496c78cac93a7' +
      '0ca08014bdaaff08eb7119ef79ef69c4833d4399cada077147febc1a231992eb8665a7e26d89b1dc323c13f721' +
      'd21c7485f70bff06cca6eed3","settlement_time":"2021-06-23 14:06:48","payment_type":"qris","o' +
      'rder_id":"0a1b2c3d4e5f60718293a4b5c6d7e801","merchant_id":"G141532850","issuer":"gopay","g' +
      'ross_amount":"5539.00","fraud_status":"accept","currency":"IDR","acquirer":"gopay"}',
  ),
  card_psp: Buffer.from(
    '{"type":"refund.updated","timestamp":"2026-11-20T09:16:41Z","data":{"created_at":"2026-11-' +
      '20T09:14:02Z","modified_at":"2026-11-20T09:16:40Z","id":"7c1e9a52-3f0d-4b8e-9a61-2d5c8f4e1' +
      'b07","metadata":{"payment_id":"0a1b2c3d4e5f60718293a4b5c6d7e9f1"},"status":"succeeded","re' +
      'ason":"customer_request","amount":1999,"tax_amount":0,"currency":"usd","organization_id":"' +
      '1dbfc517-0bbf-4301-9ba8-555ca42b9737","order_id":"3b9f8c2e-6a41-4d0b-8f7e-5c2a1d9e4f60","s' +
      'ubscription_id":"e5a0c7d3-9b18-4f26-a3c4-7d1e8b2f6a95","customer_id":"992fae2a-2a17-4b7a-8' +
      'd9e-e287cf90131b","revoke_benefits":false,"dispute":null}}',
  ),
  wallet_psp: Buffer.from(
    '{"id":"WH-58D329510W468432D-8HN650336L201105X","create_time":"2019-02-14T21:50:07.940Z","r' +
      'esource_type":"capture","event_type":"PAYMENT.CAPTURE.COMPLETED","summary":"Payment comple' +
      'ted for $ 2.51 USD","resource":{"amount":{"currency_code":"USD","value":"2.51"},"seller_pr' +
      'otection":{"status":"ELIGIBLE","dispute_categories":["ITEM_NOT_RECEIVED","UNAUTHORIZED_TRA' +
      'NSACTION"]},"supplementary_data":{"related_ids":{"order_id":"5O190127TN364715T"}},"update_' +
      'time":"2019-02-14T21:49:58Z","create_time":"2019-02-14T21:49:58Z","final_capture":true,"se' +
      'ller_receivable_breakdown":{"gross_amount":{"currency_code":"USD","value":"2.51"},"paypal_' +
      'fee":{"currency_code":"USD","value":"0.37"},"net_amount":{"currency_code":"USD","value":"2' +
      '.14"}},"custom_id":"0a1b2c3d4e5f60718293a4b5c6d7e901","links":[{"href":"https://api.paypal' +
      '.com/v2/payments/captures/27M47624FP291604U","rel":"self","method":"GET"},{"href":"https:/' +
      '/api.paypal.com/v2/payments/captures/27M47624FP291604U/refund","rel":"refund","method":"PO' +
      'ST"},{"href":"https://api.paypal.com/v2/checkout/orders/5O190127TN364715T","rel":"up","met' +
      'hod":"GET"}],"id":"27M47624FP291604U","status":"COMPLETED"},"links":[{"href":"https://api.' +
      'paypal.com/v1/notifications/webhooks-events/WH-58D329510W468432D-8HN650336L201105X","rel":' +
      '"self","method":"GET","encType":"application/json"},{"href":"https://api.paypal.com/v1/not' +
      'ifications/webhooks-events/WH-58D329510W468432D-8HN650336L201105X/resend","rel":"resend","' +
      'method":"POST","encType":"application/json"}],"event_version":"1.0","resource_version":"2.' +
      '0"}',
  ),
};

/** A 4 KB window holds the dictionary and a notification; the small state keeps it cheap. */
const DEFLATE = { windowBits: 12, memLevel: 4 };

/** What to store for a whole body: deflated when that is smaller, else as received. */
export function packBody(provider: string, body: Buffer): { bytes: Buffer; codec: number | null } {
  const dictionary = DICTIONARIES_V1[provider];
  if (!dictionary || body.length < 64) return { bytes: body, codec: null };
  const packed = deflateRawSync(body, {
    ...DEFLATE,
    dictionary,
    chunkSize: outputChunkFor(body.length),
  });
  return packed.length < body.length
    ? { bytes: packed, codec: BODY_DEFLATED_V1 }
    : { bytes: body, codec: null };
}

/** The body as received, from its stored form. */
export function unpackBody(provider: string, stored: Buffer, codec: number | null): Buffer {
  if (codec === null) return stored;
  const dictionary = DICTIONARIES_V1[provider];
  if (codec !== BODY_DEFLATED_V1 || !dictionary) {
    throw new Error(`inbound body codec ${codec} of ${provider} is not known`);
  }
  return inflateRawSync(stored, { windowBits: 15, dictionary });
}

/**
 * An archived body read back for display, or why it cannot be (never a throw: one damaged
 * row must not cost the list it is in). Raw deflate carries no checksum, so an inflated body
 * is checked against the size and SHA-256 recorded when it was received; a body stored as
 * received (codec NULL, truncated ones included) is shown as it is.
 */
export function readArchivedBody(
  provider: string,
  stored: Buffer,
  codec: number | null,
  received: { bytes: number; sha256: string },
): { body: Buffer; error: null } | { body: null; error: string } {
  if (codec === null) return { body: stored, error: null };
  let body: Buffer;
  try {
    body = unpackBody(provider, stored, codec);
  } catch (err) {
    const known = codec === BODY_DEFLATED_V1 && DICTIONARIES_V1[provider] !== undefined;
    const reason = known
      ? `inflate failed: ${(err as Error).message}`
      : `codec ${codec} is not known for ${provider}`;
    return { body: null, error: `stored body could not be read: ${reason}` };
  }
  if (
    body.length !== received.bytes ||
    createHash('sha256').update(body).digest('hex') !== received.sha256
  ) {
    return {
      body: null,
      error:
        'stored body could not be read: inflated body does not match raw_body_bytes and raw_body_sha256',
    };
  }
  return { body, error: null };
}
