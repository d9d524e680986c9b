import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, apiError, errorReply, notConfigured } from '../../src/domain/errors.js';

// docs/api.md#errors: the exact status and plain-text body of every error row.

test('the contract rows: exact status and body', () => {
  const rows: [ReturnType<typeof errorReply>, number, string][] = [
    [
      errorReply('missing_fields', 'amount_minor, currency'),
      400,
      'missing required fields: amount_minor, currency',
    ],
    [errorReply('body_read'), 400, 'body read'],
    [
      errorReply('bad_reference', 'unknown provider reference "x"'),
      400,
      'bad reference: unknown provider reference "x"',
    ],
    [errorReply('missing_auth_headers'), 401, 'missing auth headers'],
    [errorReply('bad_timestamp'), 401, 'bad timestamp'],
    [errorReply('timestamp_out_of_range'), 401, 'timestamp out of range'],
    [errorReply('bad_signature'), 401, 'bad signature'],
    [errorReply('unauthorized'), 401, 'unauthorized'],
    [errorReply('too_many_failed_authentications'), 429, 'too many failed authentications'],
    [errorReply('payment_not_found'), 404, 'payment not found'],
    [errorReply('unknown_payment'), 404, 'unknown payment'],
    [errorReply('idempotency_conflict'), 409, 'idempotency conflict — different body for same key'],
    [
      errorReply('no_provider', 'qris', 'USD'),
      422,
      'no provider supports method=qris for currency=USD',
    ],
    [
      errorReply('provider_not_allowed', 'idr_psp'),
      422,
      'provider idr_psp not allowed for this app',
    ],
    [
      errorReply('method_not_enabled', 'va_bca', 'idr_psp'),
      422,
      'method va_bca not enabled for provider idr_psp on this app',
    ],
    [
      errorReply('refund_needs_succeeded', 'initiated'),
      422,
      "payment must be in 'succeeded' state to refund (got initiated)",
    ],
    [errorReply('already_refunded'), 422, 'payment already has a refund'],
    [errorReply('refund_exceeds_amount'), 422, 'refund amount exceeds payment amount'],
    [errorReply('payment_create_failed'), 500, 'payment create failed'],
    [errorReply('customer_upsert_failed'), 500, 'customer upsert failed'],
    [errorReply('store_provider_ref'), 500, 'store provider_ref'],
    [
      errorReply('provider_checkout_failed', 'email is required'),
      502,
      'provider checkout failed: email is required',
    ],
    [errorReply('refund_failed', 'window expired'), 502, 'refund failed: window expired'],
    // D15: an unknown outcome is 504 with the same text as the refusal's 502.
    [
      errorReply('provider_checkout_unknown', 'idr_psp did not answer within 15000 ms'),
      504,
      'provider checkout failed: idr_psp did not answer within 15000 ms',
    ],
    [
      errorReply('refund_unknown', 'idr_psp unreachable'),
      504,
      'refund failed: idr_psp unreachable',
    ],
    [errorReply('cancel_failed', 'no'), 502, 'cancel failed: no'],
    [
      errorReply('cancel_unknown', 'idr_psp unreachable'),
      504,
      'cancel failed: idr_psp unreachable',
    ],
    [errorReply('sync_failed', 'no'), 502, 'sync failed: no'],
    [errorReply('sync_unknown', 'idr_psp unreachable'), 504, 'sync failed: idr_psp unreachable'],
    [errorReply('unavailable'), 503, 'service unavailable'],
    [errorReply('body_too_large'), 413, 'body too large'],
    [errorReply('not_found'), 404, 'not found'],
  ];
  for (const [got, status, body] of rows) assert.deepEqual(got, { status, body });
});

test('an endpoint missing for a mode reads the same in every use case', () => {
  assert.equal(notConfigured('card_psp', 'live'), 'card_psp is not configured for live mode');
  assert.deepEqual(errorReply('provider_checkout_failed', notConfigured('card_psp', 'live')), {
    status: 502,
    body: 'provider checkout failed: card_psp is not configured for live mode',
  });
  assert.deepEqual(errorReply('refund_failed', notConfigured('idr_psp', 'sandbox')), {
    status: 502,
    body: 'refund failed: idr_psp is not configured for sandbox mode',
  });
});

test('an ApiError is built from a kind and carries its status, body and headers', () => {
  const e = apiError('already_finalized', 'canceled');
  assert.ok(e instanceof ApiError);
  assert.ok(e instanceof Error);
  assert.equal(e.kind, 'already_finalized');
  assert.equal(e.status, 422);
  assert.equal(e.body, 'payment already finalized (status canceled)');
  assert.equal(e.message, e.body);
  assert.deepEqual(e.headers, {});
  const limited = apiError('too_many_unverified_webhooks').withHeaders({ 'Retry-After': '7' });
  assert.equal(limited.status, 429);
  assert.equal(limited.body, 'too many unverified webhooks');
  assert.deepEqual(limited.headers, { 'Retry-After': '7' });
  assert.equal(apiError('invalid', 'reason must be a string').body, 'reason must be a string');
  assert.equal(apiError('invalid', 'reason must be a string').status, 400);
});
