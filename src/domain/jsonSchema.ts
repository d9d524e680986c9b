/**
 * The part of JSON Schema the gateway's request and response schemas use, and the exact
 * plain-text 400 bodies a parser answers, derived from a request schema (docs/api.md#errors).
 */
type Scalar = string | number | boolean | null;

/**
 * Where a response property's value comes from in the row an answer is written from
 * (src/domain/serialize.ts). A symbol key, so it never reaches the OpenAPI document, the
 * answer checker or the generated types: it is how the gateway fills the field, not part of
 * the contract.
 */
export const SOURCE: unique symbol = Symbol('response property source');
export interface PropertySource {
  /** The row's column; the property's own name when absent. */
  readonly from?: string;
  /** What a null in that column is written as ("" for the /v1 answers' unset texts). */
  readonly whenNull?: string;
}

/** The part of JSON Schema the gateway's schemas use. */
export interface JsonSchema {
  readonly [SOURCE]?: PropertySource;
  readonly $ref?: string;
  readonly type?: JsonType | readonly JsonType[];
  readonly title?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly items?: JsonSchema;
  readonly enum?: readonly Scalar[];
  readonly const?: Scalar;
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxProperties?: number;
  readonly default?: unknown;
  readonly examples?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly contentMediaType?: string;
}
type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/** A request body: its schema and the exact 400 texts its parser answers for it. */
export interface BodySpec {
  readonly schema: JsonSchema;
  /** Field-specific 400 bodies (the generic ones are derived from the schema: bodyErrors). */
  readonly messages: Readonly<Record<string, string>>;
  /** String fields whose wrong type gets their own message, not `<field> must be a string`. */
  readonly ownTypeMessage?: readonly string[];
}

export const MAX_SAFE_AMOUNT = Number.MAX_SAFE_INTEGER;

/** An integer query parameter with bounds and a default, as a string on the wire. */
export interface IntegerParam extends JsonSchema {
  readonly type: 'integer';
  readonly minimum: number;
  readonly maximum: number;
  readonly default: number;
}

/**
 * The value of an optional integer query parameter, or its default; null when invalid. Plain
 * digits only, at most `digits` of them (leading zeros count).
 */
export function integerParam(
  schema: IntegerParam,
  raw: string | undefined,
  digits = String(schema.maximum).length,
): number | null {
  if (raw === undefined || raw === '') return schema.default;
  if (!new RegExp(`^\\d{1,${digits}}$`).test(raw)) return null;
  const n = Number(raw);
  return n < schema.minimum || n > schema.maximum ? null : n;
}

/** The 400 body for an integer parameter out of its schema's bounds. */
export function integerParamMessage(name: string, schema: IntegerParam): string {
  return `${name} must be an integer from ${schema.minimum} to ${schema.maximum}`;
}

// ------------------------------------------------------------- 400 bodies, from the schemas

/** The property schema of `field` in a body spec (its rules are what the parser checks). */
export function prop(spec: BodySpec, field: string): JsonSchema {
  const p = spec.schema.properties?.[field];
  if (!p) throw new Error(`schema has no property ${field}`);
  return p;
}

/** The body's required fields that are absent, null or "", in the schema's order. */
export function missingRequired(spec: BodySpec, body: Record<string, unknown>): string[] {
  return (spec.schema.required ?? []).filter((f) => {
    const v = body[f];
    return v === undefined || v === null || v === '';
  });
}

export function notStringMessage(field: string): string {
  return `${field} must be a string`;
}

export function tooLongMessage(field: string, max: number): string {
  return `${field} must be at most ${max} characters`;
}

function isStringProp(s: JsonSchema): boolean {
  return s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));
}

/**
 * Every 400 body the parser of `spec` can answer about its fields, as exact strings, plus
 * the `missing required fields: ...` pattern: what the OpenAPI document lists for the body.
 */
export function bodyErrors(
  spec: BodySpec,
  generic: { types?: boolean; lengths?: boolean; missing?: boolean } = {},
): { fixed: string[]; missingPattern: string | null } {
  const fixed: string[] = [];
  for (const [field, s] of Object.entries(spec.schema.properties ?? {})) {
    if (!isStringProp(s) || spec.ownTypeMessage?.includes(field)) continue;
    if (generic.types ?? true) fixed.push(notStringMessage(field));
    if ((generic.lengths ?? true) && s.maxLength !== undefined)
      fixed.push(tooLongMessage(field, s.maxLength));
  }
  fixed.push(...Object.values(spec.messages));
  const required = (generic.missing ?? true) ? (spec.schema.required ?? []) : [];
  const names = required.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return {
    fixed: [...new Set(fixed)],
    missingPattern:
      required.length === 0 ? null : `^missing required fields: (${names})(, (${names}))*$`,
  };
}
