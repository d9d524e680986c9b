/**
 * The plain-text error bodies of each operation, for the OpenAPI document. Statuses and texts
 * come from the closed error table (src/domain/errors.ts) that the error handler answers
 * with, the 400 texts of request rules from the request schemas (src/domain/schemas.ts) that
 * the parsers use. The integration tests check every error answer they receive against the
 * resulting lists (test/helpers/openapiCheck.ts).
 */
import { MAX_JSON_DEPTH } from '../../domain/jsonInput.js';
import {
  bodyErrors,
  IDEMPOTENCY_KEY,
  integerParamMessage,
  PARAMS,
  type BodySpec,
} from '../../domain/schemas.js';
import { SCENARIO_PROVIDERS, UNKNOWN_TEST_SCENARIO } from '../../domain/testScenarios.js';
import { CURRENCY_EXPONENT } from '../../domain/money.js';
import { LEDGER_TYPES, PAYMENT_STATUSES, PROVIDERS } from '../../domain/types.js';
import { AUDIT_ACTIONS } from '../../services/audit.js';

import { errorReply } from '../../domain/errors.js';
import {
  ANY,
  escape,
  fixed,
  invalid,
  merge,
  STATUS,
  t,
  templated,
  type ErrorBody,
  type ErrorTable,
} from './errorTable.js';

export * from './errorTable.js';

/**
 * Any request, routed or not: what the HTTP layer answers itself (a malformed request, a
 * request not received in time, headers over the limit; docs/api.md#errors).
 */
export const HTTP_LAYER: ErrorTable = fixed('bad_request', 'request_timeout', 'headers_too_large');

/** Any route but /healthz: the error handler's 500, and 503 while starting or draining. */
export const EVERY_ROUTE: ErrorTable = fixed('internal', 'unavailable');

/** Routes that read a body: its size bound. */
export const WITH_BODY: ErrorTable = fixed('body_too_large');

/** A path parameter over the router's length bound, on routes whose id is not a payment id. */
export const LONG_PARAM: ErrorTable = fixed('uri_too_long');

export const APP_AUTH: ErrorTable = fixed(
  'missing_auth_headers',
  'bad_timestamp',
  'timestamp_out_of_range',
  'bad_signature',
);

export const ADMIN_AUTH: ErrorTable = fixed('unauthorized', 'too_many_failed_authentications');

/** More CSV exports at once than the process streams (docs/operations.md#csv-exports). */
export const TOO_MANY_EXPORTS: ErrorTable = fixed('too_many_exports');

export const invalidBodies = (...bodies: ErrorBody[]): ErrorTable => invalid(...bodies);
/** A route the operator's role may not use (docs/operations.md#operator-roles): its own action. */
export function forbidden(action: string, roles: readonly string[]): ErrorTable {
  return templated('forbidden', [
    { name: 'role', pattern: STATUS(roles), example: roles[0] ?? 'viewer' },
    { name: 'action', pattern: escape(action), example: action },
  ]);
}

/** A change made with the dashboard's session cookie and without its CSRF token. */
export const CSRF: ErrorTable = fixed('csrf_failed');

export const OPERATOR_NOT_FOUND: ErrorTable = fixed('operator_not_found');
export const TOKEN_NOT_FOUND: ErrorTable = fixed('token_not_found');

export const SIGN_IN_FAILED: ErrorTable = merge(
  templated('sign_in_failed', [
    {
      name: 'why',
      pattern: ANY,
      example: 'no enabled operator account for this email',
    },
  ]),
  fixed('too_many_failed_authentications', 'not_found'),
);

/** docs/api.md#text-in-request-bodies: every JSON body, before anything else reads it. */
export const JSON_TEXT: ErrorTable = merge(
  fixed('invalid_json'),
  invalid(
    t(
      '<field> must not contain NUL characters',
      '^.+ must not contain NUL characters$',
      'metadata must not contain NUL characters',
    ),
    t(
      '<field> must not contain unpaired UTF-16 surrogates',
      '^.+ must not contain unpaired UTF-16 surrogates$',
      'metadata must not contain unpaired UTF-16 surrogates',
    ),
    t(
      `<field> nested too deeply (max ${MAX_JSON_DEPTH} levels)`,
      `^.+ nested too deeply \\(max ${MAX_JSON_DEPTH} levels\\)$`,
      `metadata nested too deeply (max ${MAX_JSON_DEPTH} levels)`,
    ),
  ),
);

/** A body that must be a JSON object. */
export const JSON_BODY: ErrorTable = merge(JSON_TEXT, invalid('body must be a JSON object'));

/** The 400 bodies of a request body's own rules, from its schema. */
export function bodyRules(
  spec: BodySpec,
  generic?: { types?: boolean; lengths?: boolean; missing?: boolean },
): ErrorTable {
  const { fixed: texts, missingPattern } = bodyErrors(spec, generic);
  const required = spec.schema.required ?? [];
  const bodies: ErrorBody[] = [...texts];
  if (missingPattern) {
    const missing = (names: string) => errorReply('missing_fields', names).body;
    bodies.unshift(
      t(
        missing('<names, in the order of the schema, joined by ", ">'),
        missingPattern,
        missing(required.join(', ')),
      ),
    );
  }
  return invalid(...bodies);
}

export const IDEMPOTENT: ErrorTable = merge(
  invalid(IDEMPOTENCY_KEY.message),
  fixed('idempotency_conflict'),
);

export const PAYMENT_NOT_FOUND: ErrorTable = fixed('payment_not_found');

export const ROUTING: ErrorTable = merge(
  templated('no_provider', [
    { name: 'method', pattern: '.*', example: 'qris' },
    { name: 'currency', pattern: '.*', example: 'USD' },
  ]),
  templated('provider_not_allowed', [{ name: 'provider', pattern: '[a-z_]+', example: 'idr_psp' }]),
  templated('method_not_enabled', [
    { name: 'method', pattern: '.*', example: 'qris' },
    { name: 'provider', pattern: '[a-z_]+', example: 'idr_psp' },
  ]),
);

export const PAYMENT_CREATE: ErrorTable = merge(
  // Test-mode apps only: metadata.test_scenario names a simulated provider fault.
  invalid(
    UNKNOWN_TEST_SCENARIO,
    ...Object.entries(SCENARIO_PROVIDERS)
      .filter(([, providers]) => providers.length < PROVIDERS.length)
      .map(
        ([scenario, providers]) =>
          `metadata.test_scenario ${scenario} is simulated for ${providers.join(', ')} payments only`,
      ),
  ),
  fixed('payment_create_failed', 'customer_upsert_failed', 'store_provider_ref'),
  // D15: 502 the provider refused, 504 its answer is unknown (the payment stays initiated).
  templated('provider_checkout_failed', [
    {
      name: "the provider's text",
      pattern: ANY,
      example: 'customer_details.email is required for qris',
    },
  ]),
  templated('provider_checkout_unknown', [
    {
      name: 'what happened',
      pattern: ANY,
      example: 'idr_psp did not answer within 15000 ms',
    },
  ]),
);

const REFUND_FAILED = merge(
  templated('refund_failed', [
    {
      name: "the provider's text",
      pattern: ANY,
      example: 'card_psp refunds are made at the provider',
    },
  ]),
  templated('refund_unknown', [
    {
      name: 'what happened',
      pattern: ANY,
      example: 'idr_psp did not answer within 15000 ms',
    },
  ]),
);

export const REFUND_RULES: ErrorTable = merge(
  templated('refund_needs_succeeded', [
    { name: 'status', pattern: STATUS(PAYMENT_STATUSES), example: 'initiated' },
  ]),
  templated('payment_disputed', [
    { name: 'status', pattern: STATUS(['open', 'lost']), example: 'open' },
  ]),
  fixed('refund_exceeds_amount', 'already_refunded'),
  REFUND_FAILED,
);

/** Admin cancel: its own texts, and those of the full refund a paid payment gets. */
export const CANCEL: ErrorTable = merge(
  templated('already_finalized', [
    { name: 'status', pattern: STATUS(['failed', 'canceled']), example: 'canceled' },
  ]),
  fixed('already_refunded'),
  REFUND_FAILED,
  templated('cancel_failed', [
    {
      name: "the provider's text",
      pattern: ANY,
      example: 'Merchant cannot modify the status of the transaction',
    },
  ]),
  templated('cancel_unknown', [
    { name: 'what happened', pattern: ANY, example: 'provider unreachable' },
  ]),
);

export const SYNC: ErrorTable = merge(
  templated('sync_failed', [
    {
      name: "the provider's text",
      pattern: ANY,
      example: "Transaction doesn't exist.",
    },
  ]),
  templated('sync_unknown', [
    { name: 'what happened', pattern: ANY, example: 'provider unreachable' },
  ]),
);

const timeMessage = (name: string) =>
  `${name} must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)`;

export const LIST_LIMIT: ErrorTable = invalid(integerParamMessage('limit', PARAMS.limit));
export const DAYS: ErrorTable = invalid(integerParamMessage('days', PARAMS.days));
export const SINCE_UNTIL: ErrorTable = invalid(
  timeMessage('since'),
  timeMessage('until'),
  'since must not be after until',
);
export const PAYOUT_WINDOW: ErrorTable = invalid('since and until must be at most 366 days apart');

export const PAYMENT_LIST: ErrorTable = invalid(
  `status must be one of ${PARAMS.paymentStatus.enum.join(', ')}`,
  'before must be a payment id from a previous page',
  `q must be at most ${PARAMS.q.maxLength} characters of text`,
  `app_id must be at most ${PARAMS.appId.maxLength} characters of text`,
  timeMessage('created_from'),
  timeMessage('created_to'),
  'created_from must not be after created_to',
  'amount_min must be a non-negative integer',
  'amount_max must be a non-negative integer',
  'amount_min must not be greater than amount_max',
);

export const REFUND_LIST: ErrorTable = invalid('before must be a refund id from a previous page');

export const DELIVERY_LIST: ErrorTable = invalid(
  `status must be one of ${PARAMS.deliveryStatus.enum.join(', ')}`,
);

export const EXCEPTION_LIST: ErrorTable = invalid(
  'before must be an exception id from a previous page',
);

export const DISPUTE_LIST: ErrorTable = invalid(
  'status must be one of open, won, lost',
  `provider must be one of ${PROVIDERS.join(', ')}`,
  `app_id must be at most ${PARAMS.appId.maxLength} characters of text`,
  'before must be a dispute id from a previous page',
);

export const DISPUTE_NOT_FOUND: ErrorTable = fixed('dispute_not_found');

export const LEDGER_LIST: ErrorTable = invalid(
  `provider must be one of ${PROVIDERS.join(', ')}`,
  `currency must be one of ${Object.keys(CURRENCY_EXPONENT).sort().join(', ')}`,
  `type must be one of ${LEDGER_TYPES.join(', ')}`,
  `app_id must be at most ${PARAMS.appId.maxLength} characters of text`,
  'before must be a ledger entry id from a previous page',
);

export const EXCEPTION_RESOLVE: ErrorTable = merge(
  fixed('exception_not_found'),
  templated('exception_already_resolved', [
    { name: 'resolution', pattern: STATUS(['resolved', 'refunded']), example: 'resolved' },
  ]),
);

export const AUDIT_LIST: ErrorTable = invalid(
  'before must be an audit entry id from a previous page',
  `action must be one of ${AUDIT_ACTIONS.join(', ')}`,
  `target_id must be at most ${PARAMS.auditTargetId.maxLength} characters of text`,
  'actor must be root, system or an operator id',
);

export const EVENTS_LIST: ErrorTable = invalid(
  integerParamMessage('limit', PARAMS.eventsLimit),
  'after must be an event id from a previous page',
);

export const APP_RULES: ErrorTable = invalid(
  t('unknown provider <slug>', '^unknown provider [\\s\\S]*$', 'unknown provider paypal'),
  t(
    'allowed_methods.<slug> must be an array of method slugs',
    '^allowed_methods\\.[a-z_]+ must be an array of method slugs$',
    'allowed_methods.idr_psp must be an array of method slugs',
  ),
  t(
    'method <method> is not supported by provider <slug>',
    '^method [\\s\\S]* is not supported by provider [a-z_]+$',
    'method card_psp is not supported by provider idr_psp',
  ),
);

export const APP_NOT_FOUND: ErrorTable = fixed('app_not_found');

export const RETRY_WEBHOOK: ErrorTable = fixed('no_webhook_event');

export const PROVIDER_WEBHOOK: ErrorTable = merge(
  templated('bad_reference', [
    { name: 'why', pattern: ANY, example: 'malformed payment id "abc"' },
  ]),
  fixed(
    'body_read',
    'bad_signature',
    'unknown_payment',
    'body_too_large',
    'too_many_unverified_webhooks',
  ),
);

export const DASHBOARD: ErrorTable = fixed('not_found', 'dashboard_not_built');

/** The answers to a path or method the document does not list, and before routing. */
export const UNROUTED: ErrorTable = merge(fixed('not_found', 'unavailable'), HTTP_LAYER);
