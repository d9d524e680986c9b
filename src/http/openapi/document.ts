/**
 * The OpenAPI 3.1 document of the gateway, served at GET /openapi.json and committed as
 * docs/openapi.json (a test keeps the two equal). It is rendered from the routes the server
 * registers (src/http/api.ts): each route's contract (its parameters, the request schema
 * its parser reads, its answers' schemas in src/domain/responseSchemas.ts, its errors from
 * the closed error table through ./errors.ts). Nothing in it is written twice.
 */
import { errorReply } from '../../domain/errors.js';
import { PAYMENT_ID_PATH } from '../paths.js';
import { isDeliveredEventType } from '../../domain/events.js';
import { EVENT_KINDS, RESPONSE_SCHEMAS } from '../../domain/responseSchemas.js';
import { API } from '../api.js';
import { operationsOf } from '../routes/route.js';
import * as E from './errors.js';
import type { ErrorBody } from './errors.js';
import { EXAMPLES } from './examples.js';
import type { Json, Operation, Param, Security } from './types.js';
import { ROLES, rolesFor, ruleFor } from '../../auth/roles.js';

// --------------------------------------------------------------------------- rendering

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
}

/** The text/plain answer of one status: its exact bodies and patterns, with examples. */
function textResponse(status: number, bodies: readonly ErrorBody[]): Json {
  const fixed = bodies.filter((b): b is string => typeof b === 'string');
  const templated = bodies.filter((b) => typeof b !== 'string');
  const alternatives: Json[] = [];
  if (fixed.length > 0) alternatives.push({ enum: fixed });
  for (const b of templated) alternatives.push({ pattern: b.pattern, description: b.description });
  const examples: Json = {};
  for (const b of bodies) {
    const value = typeof b === 'string' ? b : b.example;
    let key = slug(value) || 'body';
    for (let i = 2; key in examples; i++) key = `${slug(value)}-${i}`;
    examples[key] = { value };
  }
  const listed = bodies.map((b) => `\`${typeof b === 'string' ? b : b.description}\``).join(', ');
  const response: Json = {
    description: `Plain text, exactly one of: ${listed}.`,
    content: {
      'text/plain': {
        schema: {
          type: 'string',
          ...(alternatives.length === 1 ? alternatives[0] : { anyOf: alternatives }),
        },
        examples,
      },
    },
  };
  if (status === 503 || status === 429) {
    response.headers = {
      'Retry-After': {
        description: 'Seconds to wait before retrying.',
        schema: { type: 'integer', minimum: 1 },
      },
    };
  }
  return response;
}

function requestBody(body: NonNullable<Operation['body']>): Json {
  return {
    required: body.required,
    content: {
      'application/json': {
        schema: body.spec.schema,
        examples: { example: { value: body.example } },
      },
    },
  };
}

function securityOf(s: Security): Json[] {
  if (s === 'app') return [{ payKey: [], payTimestamp: [], paySignature: [] }];
  if (s === 'admin') return [{ adminToken: [] }, { operatorToken: [] }, { sessionCookie: [] }];
  return [];
}

/**
 * An admin route's refusals by role (src/auth/roles.ts, the matrix the guard reads): 403 for
 * the roles below its least one, and the CSRF 403 of a change made with the session cookie.
 */
function roleErrors(op: Operation): E.ErrorTable {
  const allowed = rolesFor(op.method, op.path);
  const refused = ROLES.filter((r) => !allowed.includes(r));
  const rule = ruleFor(op.method, op.path);
  return E.merge(
    E.ADMIN_AUTH,
    refused.length > 0 ? E.forbidden(rule.action, refused) : {},
    op.method === 'get' ? {} : E.CSRF,
  );
}

/**
 * An answer's example, with each required property it leaves out that its schema gives
 * `examples` of its own (the first), in the schema's order: a field added to an answer carries its example in its
 * schema, and every example of that answer shows it (docs/adr/0003).
 */
const firstExample = (prop: Json): unknown =>
  Array.isArray(prop.examples) ? (prop.examples as unknown[])[0] : undefined;

export function withPropertyExamples(schemaName: string, example: unknown): unknown {
  const schema = (
    RESPONSE_SCHEMAS as Record<string, { properties?: Record<string, Json>; required?: string[] }>
  )[schemaName];
  if (!schema?.properties || typeof example !== 'object' || example === null) return example;
  const given = example as Record<string, unknown>;
  const missing = Object.entries(schema.properties).filter(
    ([name, prop]) =>
      !(name in given) && schema.required?.includes(name) && firstExample(prop) !== undefined,
  );
  if (missing.length === 0) return example;
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    if (name in given) out[name] = given[name];
    else if (missing.some(([m]) => m === name)) out[name] = firstExample(prop);
  }
  for (const [name, value] of Object.entries(given)) if (!(name in out)) out[name] = value;
  return out;
}

function renderOperation(op: Operation): Json {
  const responses: Json = {};
  const errors = E.merge(
    E.HTTP_LAYER,
    op.security === 'app' ? E.APP_AUTH : op.security === 'admin' ? roleErrors(op) : {},
    op.errors,
    op.path === '/healthz' ? {} : E.EVERY_ROUTE,
  );
  const statuses = [...Object.keys(op.ok).map(Number), ...Object.keys(errors).map(Number)].sort(
    (a, b) => a - b,
  );
  for (const status of statuses) {
    const ok = op.ok[status];
    if (ok && 'schema' in ok) {
      const media: Json = { schema: { $ref: `#/components/schemas/${ok.schema}` } };
      if (ok.example !== undefined) {
        media.examples = { example: { value: withPropertyExamples(ok.schema, ok.example) } };
      }
      responses[status] = {
        description: ok.description,
        content: { 'application/json': media },
      };
    } else if (ok && 'empty' in ok) {
      responses[status] = { description: ok.description };
    } else if (ok) {
      responses[status] = {
        description: ok.description,
        content: {
          [ok.text]: { schema: { type: 'string' }, examples: { example: { value: ok.example } } },
        },
      };
    } else {
      responses[status] = textResponse(status, errors[status] ?? []);
    }
  }
  const roles = op.security === 'admin' ? rolesFor(op.method, op.path) : [];
  const rolesText =
    roles.length > 0
      ? `Roles: ${roles.join(', ')}${ruleFor(op.method, op.path).orSelf ? ' (any role for their own account)' : ''}; and ADMIN_TOKEN.`
      : '';
  const description = [op.description, rolesText].filter(Boolean).join('\n\n');
  const out: Json = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(description ? { description } : {}),
    security: securityOf(op.security),
    ...(roles.length > 0 ? { 'x-roles': roles } : {}),
  };
  if (op.parameters?.length) out.parameters = op.parameters;
  if (op.body) out.requestBody = requestBody(op.body);
  if (op.rawBody) {
    out.requestBody = {
      required: true,
      description: op.rawBody.description,
      content: {
        [op.rawBody.contentType ?? 'application/json']: {
          schema: { type: op.rawBody.contentType ? 'string' : 'object' },
        },
      },
    };
  }
  out.responses = responses;
  return out;
}

/** The outbound webhooks to apps, one per event kind (docs/api.md#outbound-webhooks). */
function webhooks(): Json {
  const out: Json = {};
  const headers: Param[] = [
    {
      name: 'X-PAY-Timestamp',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^[0-9]+$' },
      description: 'Unix seconds of this attempt.',
    },
    {
      name: 'X-PAY-Signature',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      description:
        "Lowercase hex HMAC-SHA256 of `<X-PAY-Timestamp>.<raw body>`, keyed with the app's webhook_secret as issued (docs/api.md#webhook-signing). Verify over the raw bytes, in constant time.",
    },
    {
      name: 'X-PAY-Event-Id',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^evt_[0-9a-f]{24}$' },
      description: 'The same for every attempt of one event: dedupe on it.',
    },
    {
      name: 'X-PAY-Signature-Next',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      description:
        'Only during a secret rotation window (grace_hours): the same signature under the new secret, while X-PAY-Signature stays under the old one. Accept either.',
    },
  ];
  for (const [schema, kinds] of Object.entries(EVENT_KINDS)) {
    for (const kind of kinds) {
      // dispute.* go only to the webhook endpoints subscribed to them, never to webhook_url.
      const where = isDeliveredEventType(kind)
        ? "the app's webhook_url and the endpoints subscribed to it"
        : 'the webhook endpoints subscribed to it (never to webhook_url)';
      out[kind] = {
        post: {
          operationId: `webhook_${kind.replace('.', '_')}`,
          tags: ['Outbound webhooks'],
          summary: `${kind}, posted to ${where}`,
          description:
            'Delivered at least once, in no guaranteed order (docs/api.md#delivery-and-retries).',
          parameters: headers,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: `#/components/schemas/${schema}` },
                    { properties: { event: { const: kind } } },
                  ],
                },
                examples: { example: { value: EXAMPLES.event(kind) } },
              },
            },
          },
          responses: {
            '2XX': { description: 'Delivered; the body is not read.' },
            '4XX': { description: 'Dead at once: a broken handler; no more attempts.' },
            '5XX': { description: 'Retried on the schedule, dead after the last attempt.' },
          },
        },
      };
    }
  }
  return out;
}

/** The whole document; deterministic (no dates, no environment). */
export function buildOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const op of operationsOf(API)) {
    paths[op.path] ??= {};
    (paths[op.path] as Json)[op.method] = renderOperation(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Paygate API',
      version: 'v1',
      description:
        'A multi-tenant payment gateway. Every status and plain-text error body here is exact (docs/api.md#errors). Successful answers are JSON (application/json; charset=utf-8); every error is text/plain; charset=utf-8. Any other path or method is answered 404 `not found` (see x-unknown-route).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: 'http://localhost:8080', description: 'The default PORT' }],
    tags: [
      'Payments',
      'Refunds',
      'Events',
      'Provider webhooks',
      'Admin: apps',
      'Admin: webhook endpoints',
      'Admin: payments',
      'Admin: reports',
      'Admin: reconciliation',
      'Admin: deliveries',
      'Admin: operations',
      'Admin: operators',
      'Sign-in',
      'Health',
      'Dashboard',
      'Outbound webhooks',
    ].map((name) => ({ name })),
    paths,
    webhooks: webhooks(),
    components: {
      // As JSON: the row sources under the schemas' symbol key (src/domain/serialize.ts) say
      // how the gateway writes an answer, not what it is, and stay out of the document.
      schemas: JSON.parse(JSON.stringify(RESPONSE_SCHEMAS)) as Json,
      securitySchemes: {
        payKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-PAY-Key',
          description: "The app's api_key (pk_...). One of the three request-signing headers.",
        },
        payTimestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-PAY-Timestamp',
          description: "Unix seconds, an integer within 300 seconds of the gateway's clock.",
        },
        paySignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-PAY-Signature',
          description:
            "Lowercase hex HMAC-SHA256 of `<timestamp>.<METHOD>.<path without query>.<hex SHA-256 of the raw body>`, keyed with the app's signing_secret as issued (docs/api.md#request-signing).",
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <ADMIN_TOKEN>, the operator-configured break-glass token (docs/api.md#admin-token); audited as root; every route. Can be turned off (PATCH /admin/admin-token).',
        },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "Authorization: Bearer pgo_..., an operator's personal API token (docs/api.md#operators); the operator's role decides the routes (x-roles).",
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'paygate_session',
          description:
            "The dashboard's session after OpenID Connect sign-in (__Host-paygate_session behind https); requests that change something also need its X-CSRF-Token header (from GET /admin/me).",
        },
      },
    },
    'x-unknown-route': {
      description:
        "Any path or method not listed here is answered 404 not found (a path under /v1/payments/ or /admin/payments/ that does not percent-decode: 404 payment not found, whatever the method). Before routing, any request may also get the HTTP layer's own answers, and 503 while an instance starts or drains. All in text/plain; charset=utf-8.",
      answers: [
        // A payment path that does not percent-decode is refused before routing, any method.
        { ...errorReply('payment_not_found'), pathPattern: PAYMENT_ID_PATH.source },
        ...Object.entries(E.UNROUTED).flatMap(([status, bodies]) =>
          (bodies ?? []).map((body) => ({ status: Number(status), body })),
        ),
      ],
    },
  };
}
