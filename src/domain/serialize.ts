/**
 * Answers written from their response schemas (docs/adr/0003, addendum): one writer compiled
 * per schema, once, that writes exactly the properties the schema declares, in its order,
 * reading each from the row by the property's source (`from`, `emptyWhenNull` in
 * schemaParts.ts; the property's own name otherwise). The route's response schema is then the
 * one place an answer's shape is written: no view function copies a row into an object first.
 *
 * The text is the one JSON.stringify would write for the same object (tests compare the two
 * byte for byte), with one difference that is the reason this is ours and not
 * fast-json-stringify: integers are exact at every size (D14, docs/api.md#money). A bigint is
 * written with its digits, as is a digit string in an integer property; fast-json-stringify
 * writes integers through JavaScript numbers, which round past 2^53.
 *
 * - strings: JSON.stringify's own escaping (quotes, backslashes, control characters, lone
 *   surrogates as \uXXXX); a Date (timestamp columns) as its toISOString, as JSON.stringify's
 *   toJSON would;
 * - a null value is `null` (or the property's whenNull text); an optional property whose value
 *   is undefined is left out; a required one that is undefined is a programming error (the row
 *   has no such column) and throws, so a field added to a schema without its column fails its
 *   test at once;
 * - free-form parts (metadata, anyOf of several shapes, const) are written like JSON.stringify
 *   writes them, bigints exact (exactJson).
 */
import { exactJson } from './exactJson.js';
import { SOURCE, type JsonSchema } from './jsonSchema.js';
import { RESPONSE_SCHEMAS, type ResponseSchemaName } from './responseSchemas.js';

type Writer = (value: unknown) => string;

/**
 * A free-form part (metadata) in a property: JSON.stringify's own native writer, and only
 * for a value holding a bigint, on which it throws, exactJson.
 */
function anyJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/.test(err.message)) throw err;
    return exactJson(value) ?? 'null';
  }
}

const DIGITS = /^-?(?:0|[1-9][0-9]*)$/;

function writeInteger(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'bigint') return value.toString();
  // A sum read as text (PostgreSQL numeric/bigint): its digits, unquoted, exact.
  if (typeof value === 'string' && DIGITS.test(value)) return value;
  return anyJson(value);
}

/**
 * What JSON.stringify escapes in a string: control characters, the quote, the backslash, and
 * surrogates (lone ones become \uXXXX; a string holding any goes through JSON.stringify).
 * A string without any is written between quotes as it is, identical and cheaper.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

function writeString(value: unknown): string {
  if (typeof value === 'string') return ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  return anyJson(value);
}

function writeBoolean(value: unknown): string {
  if (value === true) return 'true';
  if (value === false) return 'false';
  return anyJson(value);
}

/** The one non-null type a schema admits (`['string', 'null']` is a nullable string). */
function typeOf(schema: JsonSchema): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t;
  const nonNull = (t ?? []).filter((x) => x !== 'null');
  return nonNull.length === 1 ? nonNull[0] : undefined;
}

const REF = '#/components/schemas/';

function compile(schema: JsonSchema, lenient = false): Writer {
  if (schema.$ref) {
    if (!schema.$ref.startsWith(REF)) throw new Error(`unknown $ref ${schema.$ref}`);
    const name = schema.$ref.slice(REF.length) as ResponseSchemaName;
    if (!(name in RESPONSE_SCHEMAS)) throw new Error(`unknown schema ${name}`);
    return lenient ? (v) => lenientWriterFor(name)(v) : (v) => serializerFor(name)(v);
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    // `anyOf: [X, {type: 'null'}]` is a nullable X; several shapes are written as they are.
    const shapes = alternatives.filter((s) => s.type !== 'null');
    return shapes.length === 1 ? compile(shapes[0] as JsonSchema, lenient) : anyJson;
  }
  if (schema.const !== undefined) return anyJson;
  switch (typeOf(schema)) {
    case 'string':
      return nullOr(writeString);
    case 'integer':
    case 'number':
      return nullOr(writeInteger);
    case 'boolean':
      return nullOr(writeBoolean);
    case 'array':
      return schema.items ? nullOr(arrayWriter(compile(schema.items, lenient))) : anyJson;
    case 'object':
      return schema.properties ? objectWriter(schema, lenient) : anyJson;
    default:
      return anyJson;
  }
}

function nullOr(write: Writer): Writer {
  return (v) => (v === null ? 'null' : write(v));
}

function arrayWriter(item: Writer): Writer {
  return (v) => {
    if (!Array.isArray(v)) return anyJson(v);
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ',';
      const x: unknown = v[i];
      out += x === undefined ? 'null' : item(x);
    }
    return out + ']';
  };
}

/**
 * An object's writer is generated code, one straight line per property (as fast-json-stringify
 * does): the keys are literals, strings and integers are written inline, other parts call their
 * compiled writers. Only names and writers from the schema reach the code, as JSON literals.
 */
function objectWriter(schema: JsonSchema, lenient: boolean): Writer {
  // Lenient (the generic path of sendJson): a property missing in the body is left out, as
  // JSON.stringify leaves out undefined, whether the schema requires it or not; the body is
  // an answer already built, so properties are read by their own names (no `from`, no
  // `whenNull`).
  const required = new Set(lenient ? [] : (schema.required ?? []));
  const writers: Writer[] = [];
  const lines: string[] = ['let out = "{";', 'let sep = "";', 'let x;'];
  // While every property so far is required, whether a comma comes is known here.
  let known = true;
  Object.entries(schema.properties ?? {}).forEach(([name, s], i) => {
    // The lenient writer writes an answer already built (keys are the answer's names), not a row.
    const source = lenient ? undefined : s[SOURCE];
    const column = JSON.stringify(source?.from ?? name);
    writers.push(compile(s, lenient));
    const type = s.$ref || s.anyOf || s.oneOf || s.const !== undefined ? undefined : typeOf(s);
    let value =
      type === 'string'
        ? `typeof x === "string" ? (ESCAPE.test(x) ? JSON.stringify(x) : '"' + x + '"') : w[${i}](x)`
        : type === 'integer'
          ? `typeof x === "number" && Number.isFinite(x) ? "" + x : w[${i}](x)`
          : `w[${i}](x)`;
    if (source?.whenNull !== undefined) {
      value = `x === null ? ${JSON.stringify(JSON.stringify(source.whenNull))} : ${value}`;
    }
    const key = JSON.stringify(name) + ':';
    lines.push(`x = row[${column}];`);
    if (required.has(name)) {
      const prefix = known
        ? JSON.stringify(i === 0 ? key : ',' + key)
        : `sep + ${JSON.stringify(key)}`;
      lines.push(`if (x === undefined) missing(${JSON.stringify(name)}, ${column});`);
      lines.push(`out += ${prefix} + (${value});`);
      if (!known) lines.push('sep = ",";');
    } else {
      if (known) lines.push(`sep = ${i === 0 ? '""' : '","'};`);
      lines.push(
        `if (x !== undefined) { out += sep + ${JSON.stringify(key)} + (${value}); sep = ","; }`,
      );
      known = false;
    }
  });
  lines.push('return out + "}";');
  const body = lines.join('\n');
  const write = new Function('w', 'missing', 'ESCAPE', `return function (row) {\n${body}\n};`)(
    writers,
    missing,
    ESCAPE,
  ) as Writer;
  return (v) =>
    typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Date
      ? anyJson(v)
      : write(v);
}

function missing(name: string, column: string): never {
  throw new Error(`response field ${name}: the row has no ${column}`);
}

const compiled = new Map<ResponseSchemaName, Writer>();

/** The writer of a named response schema, compiled on first use and kept. */
export function serializerFor(name: ResponseSchemaName): Writer {
  let w = compiled.get(name);
  if (!w) {
    const inner = compile(RESPONSE_SCHEMAS[name]);
    w = (v) => {
      if (v === undefined) throw new Error(`response ${name}: no value`);
      return inner(v);
    };
    compiled.set(name, w);
  }
  return w;
}

const lenientCompiled = new Map<ResponseSchemaName, Writer>();

/**
 * The writer of a named schema for the generic path (sendJson of a route that declares the
 * schema for its status): like serializerFor, except that a missing property, required or
 * not, is left out as JSON.stringify leaves out undefined, so it never throws on a body the
 * handler built (docs/adr/0003, addendum).
 */
export function lenientWriterFor(name: ResponseSchemaName): Writer {
  let w = lenientCompiled.get(name);
  if (!w) {
    w = compile(RESPONSE_SCHEMAS[name], true);
    lenientCompiled.set(name, w);
  }
  return w;
}

/** A writer for a schema that is not (or not exactly) a named one: the tests' fixed shapes. */
export function writerFor(schema: JsonSchema): Writer {
  return compile(schema);
}

/** The JSON text of an answer: `row` written by the response schema `name`. */
export function serialize(name: ResponseSchemaName, row: unknown): string {
  return serializerFor(name)(row);
}
