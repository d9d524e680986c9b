/**
 * The plain-text error bodies of each operation, for the OpenAPI document. Request-rule texts
 * come from the request schemas (src/domain/schemas.ts), which the parsers use; the rest are
 * the exact texts of docs/api.md#errors, and the integration tests check every error answer
 * they receive against this list (test/helpers/openapiCheck.ts).
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
import { PAYMENT_STATUSES, PROVIDERS } from '../../domain/types.js';
import { AUDIT_ACTIONS } from '../../services/audit.js';

/** A body with filled-in parts: the pattern it matches and one real example. */
export interface Templated {
  readonly pattern: string;
  readonly example: string;
  readonly description: string;
}
export type ErrorBody = string | Templated;
export type ErrorTable = Readonly<Partial<Record<number, readonly ErrorBody[]>>>;

const t = (template: string, pattern: string, example: string): Templated => ({
  pattern,
  example,
  description: template,
});

/** Merges tables: the bodies of each status, in order, without repeats. */
export function merge(...tables: ErrorTable[]): ErrorTable {
  const out: Partial<Record<number, ErrorBody[]>> = {};
  for (const table of tables) {
    for (const [status, bodies] of Object.entries(table)) {
      const list = (out[Number(status)] ??= []);
      for (const b of bodies ?? []) {
        const key = JSON.stringify(b);
        if (!list.some((x) => JSON.stringify(x) === key)) list.push(b);
      }
    }
  }
  return out;
}

/**
 * Any request, routed or not: what the HTTP layer answers itself (a malformed request, a
 * request not received in time, headers over the limit; docs/api.md#errors).
 */
export const HTTP_LAYER: ErrorTable = {
  400: ['bad request'],
  408: ['request timeout'],
  431: ['headers too large'],
};

/** Any route but /healthz: the error handler's 500, and 503 while starting or draining. */
export const EVERY_ROUTE: ErrorTable = {
  500: ['internal error'],
  503: ['service unavailable'],
};

/** Routes that read a body: its size bound. */
export const WITH_BODY: ErrorTable = { 413: ['body too large'] };

/** A path parameter over the router's length bound, on routes whose id is not a payment id. */
export const LONG_PARAM: ErrorTable = { 414: ['uri too long'] };

export const APP_AUTH: ErrorTable = {
  401: ['missing auth headers', 'bad timestamp', 'timestamp out of range', 'bad signature'],
};

export const ADMIN_AUTH: ErrorTable = { 401: ['unauthorized'] };

/** docs/api.md#text-in-request-bodies: every JSON body, before anything else reads it. */
export const JSON_TEXT: ErrorTable = {
  400: [
    'invalid JSON body',
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
  ],
};

/** A body that must be a JSON object. */
export const JSON_BODY: ErrorTable = merge(JSON_TEXT, { 400: ['body must be a JSON object'] });

/** The 400 bodies of a request body's own rules, from its schema. */
export function bodyRules(
  spec: BodySpec,
  generic?: { types?: boolean; lengths?: boolean; missing?: boolean },
) {
  const { fixed, missingPattern } = bodyErrors(spec, generic);
  const required = spec.schema.required ?? [];
  const bodies: ErrorBody[] = [...fixed];
  if (missingPattern) {
    bodies.unshift(
      t(
        'missing required fields: <names, in the order of the schema, joined by ", ">',
        missingPattern,
        `missing required fields: ${required.join(', ')}`,
      ),
    );
  }
  return { 400: bodies } satisfies ErrorTable;
}

export const IDEMPOTENT: ErrorTable = {
  400: [IDEMPOTENCY_KEY.message],
  409: ['idempotency conflict — different body for same key'],
};

export const PAYMENT_NOT_FOUND: ErrorTable = { 404: ['payment not found'] };

export const ROUTING: ErrorTable = {
  422: [
    t(
      'no provider supports method=<method> for currency=<currency>',
      '^no provider supports method=.* for currency=.*$',
      'no provider supports method=qris for currency=USD',
    ),
    t(
      'provider <provider> not allowed for this app',
      '^provider [a-z_]+ not allowed for this app$',
      'provider idr_psp not allowed for this app',
    ),
    t(
      'method <method> not enabled for provider <provider> on this app',
      '^method .* not enabled for provider [a-z_]+ on this app$',
      'method qris not enabled for provider idr_psp on this app',
    ),
  ],
};

export const PAYMENT_CREATE: ErrorTable = {
  // Test-mode apps only: metadata.test_scenario names a simulated provider fault.
  400: [
    UNKNOWN_TEST_SCENARIO,
    ...Object.entries(SCENARIO_PROVIDERS)
      .filter(([, providers]) => providers.length < PROVIDERS.length)
      .map(
        ([scenario, providers]) =>
          `metadata.test_scenario ${scenario} is simulated for ${providers.join(', ')} payments only`,
      ),
  ],
  500: ['payment create failed', 'customer upsert failed', 'store provider_ref'],
  502: [
    t(
      "provider checkout failed: <the provider's text, or what happened>",
      '^provider checkout failed: [\\s\\S]+$',
      'provider checkout failed: card_psp timed out after 15000 ms',
    ),
  ],
};

export const REFUND_RULES: ErrorTable = {
  422: [
    t(
      "payment must be in 'succeeded' state to refund (got <status>)",
      `^payment must be in 'succeeded' state to refund \\(got (${PAYMENT_STATUSES.join('|')})\\)$`,
      "payment must be in 'succeeded' state to refund (got initiated)",
    ),
    'refund amount exceeds payment amount',
    'payment already has a refund',
  ],
  502: [
    t(
      "refund failed: <the provider's text, or what happened>",
      '^refund failed: [\\s\\S]+$',
      'refund failed: card_psp refunds are made at the provider',
    ),
  ],
};

/** Admin cancel: its own texts, and those of the full refund a paid payment gets. */
export const CANCEL: ErrorTable = {
  422: [
    t(
      'payment already finalized (status <status>)',
      '^payment already finalized \\(status (failed|canceled)\\)$',
      'payment already finalized (status canceled)',
    ),
    'payment already has a refund',
  ],
  502: [
    ...(REFUND_RULES[502] ?? []),
    t(
      "cancel failed: <the provider's text>",
      '^cancel failed: [\\s\\S]+$',
      'cancel failed: provider unreachable',
    ),
  ],
};

export const SYNC: ErrorTable = {
  502: [
    t(
      "sync failed: <the provider's text>",
      '^sync failed: [\\s\\S]+$',
      'sync failed: provider unreachable',
    ),
  ],
};

const timeMessage = (name: string) =>
  `${name} must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)`;

export const LIST_LIMIT: ErrorTable = { 400: [integerParamMessage('limit', PARAMS.limit)] };
export const DAYS: ErrorTable = { 400: [integerParamMessage('days', PARAMS.days)] };
export const SINCE_UNTIL: ErrorTable = {
  400: [timeMessage('since'), timeMessage('until'), 'since must not be after until'],
};
export const PAYOUT_WINDOW: ErrorTable = {
  400: ['since and until must be at most 366 days apart'],
};

export const PAYMENT_LIST: ErrorTable = {
  400: [
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
  ],
};

export const REFUND_LIST: ErrorTable = {
  400: ['before must be a refund id from a previous page'],
};

export const DELIVERY_LIST: ErrorTable = {
  400: [`status must be one of ${PARAMS.deliveryStatus.enum.join(', ')}`],
};

export const EXCEPTION_LIST: ErrorTable = {
  400: ['before must be an exception id from a previous page'],
};

export const EXCEPTION_RESOLVE: ErrorTable = {
  404: ['exception not found'],
  422: [
    t(
      'exception already <resolution>',
      '^exception already (resolved|refunded)$',
      'exception already resolved',
    ),
  ],
};

export const AUDIT_LIST: ErrorTable = {
  400: [
    'before must be an audit entry id from a previous page',
    `action must be one of ${AUDIT_ACTIONS.join(', ')}`,
    `target_id must be at most ${PARAMS.auditTargetId.maxLength} characters of text`,
  ],
};

export const EVENTS_LIST: ErrorTable = {
  400: [
    integerParamMessage('limit', PARAMS.eventsLimit),
    'after must be an event id from a previous page',
  ],
};

export const APP_RULES: ErrorTable = {
  400: [
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
  ],
};

export const APP_NOT_FOUND: ErrorTable = { 404: ['app not found'] };

export const RETRY_WEBHOOK: ErrorTable = { 422: ['payment has no webhook event to deliver'] };

export const PROVIDER_WEBHOOK: ErrorTable = {
  400: [
    t(
      'bad reference: <why>',
      '^bad reference: [\\s\\S]+$',
      'bad reference: malformed payment id "abc"',
    ),
    'body read',
  ],
  401: ['bad signature'],
  404: ['unknown payment'],
  413: ['body too large'],
  429: ['too many unverified webhooks'],
};

export const DASHBOARD: ErrorTable = {
  404: ['not found'],
  503: ['dashboard not built: run npm run build'],
};
