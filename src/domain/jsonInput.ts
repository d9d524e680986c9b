/**
 * Request input the database can store. PostgreSQL refuses a NUL character in text and jsonb
 * and an unpaired UTF-16 surrogate in jsonb (node-postgres would silently turn one in text
 * into U+FFFD), and jsonb nesting is bounded by the server's stack; each would otherwise
 * surface as a 500 after part of a request ran. Every JSON body and every string that
 * reaches a query is checked here first, so bad input is a 400 that names the field.
 */
import { apiError } from './errors.js';

/** How deep a field's value may nest (objects and arrays), e.g. metadata. */
export const MAX_JSON_DEPTH = 32;

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `s` cannot be stored as text, or null. */
export function textProblem(s: string): 'nul' | 'surrogate' | null {
  if (s.includes('\u0000')) return 'nul';
  if (UNPAIRED_SURROGATE.test(s)) return 'surrogate';
  return null;
}

function textReason(field: string, problem: 'nul' | 'surrogate'): string {
  return problem === 'nul'
    ? `${field} must not contain NUL characters`
    : `${field} must not contain unpaired UTF-16 surrogates`;
}

/** 400 when a string input (a path or query parameter) cannot be stored as text. */
export function assertStorableText(field: string, s: string): void {
  const problem = textProblem(s);
  if (problem) throw apiError('invalid', textReason(field, problem));
}

/**
 * The reason `value`, the parsed value of one field, cannot be stored, or null. Walks with an
 * explicit stack (no recursion, so any depth is safe); keys are checked like values.
 */
export function storableJsonProblem(field: string, value: unknown): string | null {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { v, depth } = item;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return textReason(field, problem);
    } else if (typeof v === 'object' && v !== null) {
      if (depth + 1 > MAX_JSON_DEPTH) {
        return `${field} nested too deeply (max ${MAX_JSON_DEPTH} levels)`;
      }
      if (Array.isArray(v)) {
        for (const x of v) stack.push({ v: x, depth: depth + 1 });
      } else {
        for (const [k, x] of Object.entries(v)) {
          const problem = textProblem(k);
          if (problem) return textReason(field, problem);
          stack.push({ v: x, depth: depth + 1 });
        }
      }
    }
  }
  return null;
}

// A byte order mark stays in the text, where JSON.parse refuses it as before.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A request body parsed as JSON and checked for storability field by field: 400
 * `invalid JSON body` for bytes that are not UTF-8 JSON, else the first field's reason.
 */
export function parseStorableJson(raw: Buffer): unknown {
  let body: unknown;
  try {
    body = JSON.parse(utf8.decode(raw));
  } catch {
    throw apiError('invalid_json');
  }
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    for (const [k, v] of Object.entries(body)) {
      const keyProblem = textProblem(k);
      if (keyProblem) throw apiError('invalid', textReason('field names', keyProblem));
      const reason = storableJsonProblem(k, v);
      if (reason) throw apiError('invalid', reason);
    }
  } else {
    const reason = storableJsonProblem('body', body);
    if (reason) throw apiError('invalid', reason);
  }
  return body;
}
