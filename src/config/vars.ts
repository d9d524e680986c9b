/**
 * A configuration variable declared once: its type, default, bounds, description and whether
 * it is a secret. Reading the environment, the TypeScript type of the values and the tables
 * of docs/operations.md (`npm run docs:config`) all derive from these declarations.
 */

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

/** Reads another variable of the same schema (for defaults that depend on one). */
export type Read = (name: string) => unknown;

export interface Variable<T> {
  readonly type: 'integer' | 'boolean' | 'url' | 'text' | 'choice' | 'key';
  /** The value when the variable is unset (or empty, unless emptyIsValue). */
  readonly default: T | ((read: Read, env: Env) => T);
  readonly min?: number;
  readonly max?: number;
  /** Never logged or shown; the docs table says what it is, never its value. */
  readonly secret: boolean;
  /** The docs table's meaning cell. */
  readonly description: string;
  /** The docs table's default cell when the default is not one plain value. */
  readonly shownDefault?: string;
  /** An empty value is a value (parsed), not "unset". */
  readonly emptyIsValue?: boolean;
  /** The given text to a value; throws a ConfigError whose text names the variable. */
  readonly parse: (raw: string, name: string) => T;
}

type Common<T> = Pick<Variable<T>, 'description' | 'shownDefault'> & {
  default: Variable<T>['default'];
};

export function integer(o: Common<number> & { min: number; max: number }): Variable<number> {
  return {
    type: 'integer',
    secret: false,
    ...o,
    parse: (raw, name) => parseInteger(raw, name, o.min, o.max),
  };
}

export function parseInteger(raw: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return n;
}

export function boolean(o: Common<boolean>): Variable<boolean> {
  return {
    type: 'boolean',
    secret: false,
    ...o,
    parse: (raw, name) => {
      const v = raw.toLowerCase();
      if (['true', 'on', '1', 'yes'].includes(v)) return true;
      if (['false', 'off', '0', 'no'].includes(v)) return false;
      throw new ConfigError(`${name} must be true/false (or on/off), got "${raw}"`);
    },
  };
}

/** An http(s) URL without its trailing slashes; unset by default. */
export function url(o: Omit<Common<string | undefined>, 'default'>): Variable<string | undefined> {
  return { type: 'url', secret: false, default: undefined, ...o, parse: parseHttpUrl };
}

export function parseHttpUrl(raw: string, name: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http(s) URL`);
  }
  return raw.replace(/\/+$/, '');
}

export function text<T extends string | undefined>(
  o: Common<T> & { secret?: boolean; check?: (raw: string, name: string) => void },
): Variable<string | T> {
  const { check, ...rest } = o;
  return {
    type: 'text',
    secret: false,
    ...rest,
    parse: (raw, name) => {
      check?.(raw, name);
      return raw;
    },
  };
}

/** Any other shape: the parse function is the variable's own. */
export function custom<T>(
  o: Common<T> & Pick<Variable<T>, 'type' | 'parse' | 'emptyIsValue'> & { secret?: boolean },
): Variable<T> {
  return { secret: false, ...o };
}

export type Schema = Record<string, Variable<unknown>>;
export type Values<S extends Schema> = {
  [K in keyof S]: S[K] extends Variable<infer T> ? T : never;
};

/**
 * Every variable of `schema` read from `env`, in the schema's order (so the first error in
 * that order is the one reported); a default that depends on another variable reads it.
 */
export function readAll<S extends Schema>(schema: S, env: Env): Values<S> {
  const out: Record<string, unknown> = {};
  const read: Read = (name) => {
    if (!(name in out)) {
      const v = schema[name];
      if (!v) throw new Error(`no configuration variable ${name}`);
      out[name] = readOne(v, name, env, read);
    }
    return out[name];
  };
  for (const name of Object.keys(schema)) read(name);
  return out as Values<S>;
}

function readOne<T>(v: Variable<T>, name: string, env: Env, read: Read): T {
  const raw = env[name];
  if (raw === undefined || (raw === '' && !v.emptyIsValue)) {
    return typeof v.default === 'function'
      ? (v.default as (read: Read, env: Env) => T)(read, env)
      : v.default;
  }
  return v.parse(raw, name);
}

/** One row of a configuration table in docs/operations.md (`npm run docs:config` writes them). */
export interface SettingDoc {
  /** As the table shows it: `NAME` in backticks, or a pattern with words. */
  variable: string;
  default: string;
  meaning: string;
}

/** The docs table of a schema: a plain default is shown as itself, none as "unset". */
export function docRows(schema: Schema): SettingDoc[] {
  return Object.entries(schema).map(([name, v]) => {
    let shown = v.shownDefault;
    if (shown === undefined) {
      if (typeof v.default === 'function')
        throw new Error(`${name}: say its default in shownDefault`);
      shown = v.default === undefined ? 'unset' : `\`${String(v.default)}\``;
    }
    return { variable: `\`${name}\``, default: shown, meaning: v.description };
  });
}
