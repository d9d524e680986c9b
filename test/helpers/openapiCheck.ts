/**
 * Checks HTTP answers against the gateway's OpenAPI document: the path template, the method,
 * the status, the content type and the body (JSON against the response schema, plain text
 * against the listed bodies and patterns), validated with Ajv. An answer the document does
 * not describe is a violation. watchGateway() makes every fetch() of this process to that
 * gateway checked: the test's own requests, the SDK's and the simulators' webhooks to it.
 */
import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';

type Json = Record<string, unknown>;

export interface ObservedAnswer {
  method: string;
  /** Path with an optional query string, as requested. */
  path: string;
  status: number;
  contentType: string | null;
  body: string;
}

// ajv-formats is CommonJS: its default export arrives wrapped under tsx.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** JSON Pointer escaping of one token. */
const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export class OpenApiChecker {
  private readonly ajv: Ajv2020;
  private readonly templates: { template: string; re: RegExp; params: number }[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json = buildOpenApiDocument()) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, 'openapi.json');
    this.templates = Object.keys(doc.paths as Json)
      .map((template) => ({
        template,
        re: new RegExp(
          '^' +
            template
              .split(/\{[^}]+\}/)
              .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
              .join('[^/]+') +
            '$',
        ),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // A literal path wins over a template that also matches.
      .sort((a, b) => a.params - b.params);
  }

  /** The path template a request path matches, or null. */
  template(path: string): string | null {
    const bare = path.split('?')[0] as string;
    return this.templates.find((t) => t.re.test(bare))?.template ?? null;
  }

  /** What is wrong with this answer according to the document; [] when it is described. */
  check(a: ObservedAnswer): string[] {
    // OPENAPI_CHECK_LOG=<file>: one line per checked answer, to see which operations and
    // statuses the tests exercise.
    if (process.env.OPENAPI_CHECK_LOG) {
      appendFileSync(
        process.env.OPENAPI_CHECK_LOG,
        `${a.method} ${this.template(a.path) ?? '(unknown route)'} ${a.status}\n`,
      );
    }
    const what = `${a.method} ${a.path} -> ${a.status} ${a.contentType ?? '(no content type)'}`;
    const method = a.method.toLowerCase() === 'head' ? 'get' : a.method.toLowerCase();
    const template = this.template(a.path);
    const op = template
      ? ((this.doc.paths as Record<string, Json>)[template]?.[method] as Json | undefined)
      : undefined;
    if (!template || !op) return this.checkUnknownRoute(a, what);

    const responses = op.responses as Record<string, Json>;
    const response = responses[String(a.status)];
    if (!response) {
      return [
        `${what}: status ${a.status} is not documented for ${method.toUpperCase()} ${template} (documented: ${Object.keys(responses).join(', ')})`,
      ];
    }
    const content = response.content as Record<string, Json> | undefined;
    if (!content) return a.body === '' ? [] : [`${what}: a body where none is documented`];
    const essence = (a.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const mediaType = content[essence] ? essence : content['*/*'] ? '*/*' : null;
    if (!mediaType) {
      return [
        `${what}: content type ${essence || '(none)'} is not documented (documented: ${Object.keys(content).join(', ')})`,
      ];
    }
    const problems: string[] = [];
    if (
      (essence === 'application/json' || essence === 'text/plain') &&
      !/;\s*charset=utf-8/i.test(a.contentType ?? '')
    ) {
      problems.push(`${what}: content type without charset=utf-8`);
    }
    if (a.method.toUpperCase() === 'HEAD') return problems;
    let value: unknown = a.body;
    if (essence === 'application/json') {
      try {
        value = JSON.parse(a.body);
      } catch {
        return [...problems, `${what}: the body is not JSON: ${a.body.slice(0, 200)}`];
      }
    }
    const ref = `openapi.json#/paths/${pointer(template)}/${method}/responses/${a.status}/content/${pointer(mediaType)}/schema`;
    const validate = this.validator(ref);
    if (!validate(value)) {
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
        .join('; ');
      problems.push(
        `${what}: the body does not match the document: ${errors}; body: ${a.body.slice(0, 300)}`,
      );
    }
    return problems;
  }

  private checkUnknownRoute(a: ObservedAnswer, what: string): string[] {
    const unknown = this.doc['x-unknown-route'] as {
      answers: { status: number; body: string; pathPattern?: string }[];
    };
    const essence = (a.contentType ?? '').split(';')[0]?.trim();
    const listed = unknown.answers.some(
      (x) =>
        x.status === a.status &&
        x.body === a.body &&
        (x.pathPattern === undefined || new RegExp(x.pathPattern).test(a.path)),
    );
    if (listed && essence === 'text/plain') return [];
    return [
      `${what}: no documented operation ${a.method} ${a.path.split('?')[0]} (body: ${a.body.slice(0, 200)})`,
    ];
  }

  private validator(ref: string): ValidateFunction {
    let v = this.validators.get(ref);
    if (!v) {
      v = this.ajv.getSchema(ref);
      if (!v) throw new Error(`no schema at ${ref}`);
      this.validators.set(ref, v);
    }
    return v;
  }
}

// ------------------------------------------------------------- checking every fetch()

let checker: OpenApiChecker | undefined;
const watched = new Map<string, string[]>();
const exempt = new Map<string, ((a: ObservedAnswer) => boolean)[]>();
let installed = false;

/**
 * For tests that write rows by SQL which the gateway itself never writes (a body no event of
 * the gateway has): answers that show those rows are outside the document's promise. Each
 * use names its reason at the call site; everything else stays checked.
 */
export function exemptAnswers(
  baseUrl: string,
  _reason: string,
  showsFabricatedRows: (a: ObservedAnswer) => boolean,
): void {
  const origin = new URL(baseUrl).origin;
  exempt.set(origin, [...(exempt.get(origin) ?? []), showsFabricatedRows]);
}

/** Violations recorded for a gateway's origin since it was watched. */
export function violations(baseUrl: string): string[] {
  return watched.get(new URL(baseUrl).origin) ?? [];
}

/**
 * From now on every answer this process's fetch() receives from baseUrl is checked against
 * the document. The simulators under /sim/ stand in for providers and are not the gateway's
 * API. A violation rejects that fetch() with an error naming it, and is recorded so that
 * stopWatching() fails too (a caller inside the gateway, such as a simulator, might swallow
 * the error).
 */
export function watchGateway(baseUrl: string): void {
  checker ??= new OpenApiChecker();
  watched.set(new URL(baseUrl).origin, []);
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const res = await original(input, init);
    const url = new URL(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
    );
    const found = watched.get(url.origin);
    if (!found || url.pathname.startsWith('/sim/') || !checker) return res;
    const method = (
      init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')
    ).toUpperCase();
    const answer: ObservedAnswer = {
      method,
      path: url.pathname + url.search,
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: await res.clone().text(),
    };
    const problems = checker.check(answer);
    if (problems.length > 0 && !(exempt.get(url.origin) ?? []).some((f) => f(answer))) {
      found.push(...problems);
      throw new Error(`answer not described by the OpenAPI document: ${problems.join(' | ')}`);
    }
    return res;
  };
}

/**
 * The same check for an answer read off a raw socket (test/helpers/rawHttp.ts): when the
 * request line parses, the answer must be one the document describes for it.
 */
export function checkRawAnswer(
  baseUrl: string,
  request: string,
  answer: { status: number; headers: Record<string, string>; body: string },
): void {
  const origin = new URL(baseUrl).origin;
  const found = watched.get(origin);
  const line = /^([A-Z]+) (\/\S*) HTTP\/1\.[01]\r\n/.exec(request);
  if (!found || !line || !checker || (line[2] as string).startsWith('/sim/')) return;
  const problems = checker.check({
    method: line[1] as string,
    path: line[2] as string,
    status: answer.status,
    contentType: answer.headers['content-type'] ?? null,
    body: answer.body,
  });
  if (problems.length > 0) {
    found.push(...problems);
    throw new Error(`answer not described by the OpenAPI document: ${problems.join(' | ')}`);
  }
}

/** Stops checking baseUrl; throws when any of its answers was not described by the document. */
export function stopWatching(baseUrl: string): void {
  const found = violations(baseUrl);
  watched.delete(new URL(baseUrl).origin);
  exempt.delete(new URL(baseUrl).origin);
  if (found.length > 0) {
    throw new Error(
      `${found.length} answer(s) not described by the OpenAPI document:\n${found.join('\n')}`,
    );
  }
}
