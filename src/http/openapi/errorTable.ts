/**
 * The machinery of the OpenAPI error lists: a status's plain-text bodies, exact or as a
 * pattern with an example, built from the closed error table (src/domain/errors.ts).
 */
import { errorReply, type ErrorKind, type FixedTextKind } from '../../domain/errors.js';

/** A body with filled-in parts: the pattern it matches and one real example. */
export interface Templated {
  readonly pattern: string;
  readonly example: string;
  readonly description: string;
}
export type ErrorBody = string | Templated;
export type ErrorTable = Readonly<Partial<Record<number, readonly ErrorBody[]>>>;

export const t = (template: string, pattern: string, example: string): Templated => ({
  pattern,
  example,
  description: template,
});

export const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Fixed kinds of the error table, each under its own status. */
export function fixed(...kinds: FixedTextKind[]): ErrorTable {
  return merge(...kinds.map((k) => ({ [errorReply(k).status]: [errorReply(k).body] })));
}

/**
 * A templated kind of the error table: its description and pattern are its own template
 * filled with `<name>` and with each part's pattern; the example fills in `example`.
 */
export function templated(
  kind: ErrorKind,
  parts: readonly { name: string; pattern: string; example: string }[],
): ErrorTable {
  const fill = (values: string[]) =>
    (errorReply as (k: ErrorKind, ...a: string[]) => { status: number; body: string })(
      kind,
      ...values,
    );
  const markers = parts.map((_p, i) => `\u0000${i}\u0000`);
  let pattern = escape(fill(markers).body);
  parts.forEach((p, i) => {
    pattern = pattern.replace(escape(markers[i] as string), p.pattern);
  });
  const { status, body: example } = fill(parts.map((p) => p.example));
  return {
    [status]: [t(fill(parts.map((p) => `<${p.name}>`)).body, `^${pattern}$`, example)],
  };
}

export const ANY = '[\\s\\S]+';
export const STATUS = (values: readonly string[]) => `(${values.join('|')})`;

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

export const invalid = (...bodies: ErrorBody[]): ErrorTable => ({
  [errorReply('invalid', '').status]: bodies,
});
