import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/domain/errors.js';
import {
  MAX_JSON_DEPTH,
  parseStorableJson,
  storableJsonProblem,
  textProblem,
} from '../../src/domain/jsonInput.js';

function deep(levels: number): unknown {
  let v: unknown = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

describe('storable text', () => {
  test('NUL and unpaired surrogates are found; pairs and ordinary text pass', () => {
    assert.equal(textProblem('a\u0000b'), 'nul');
    assert.equal(textProblem('\ud800'), 'surrogate');
    assert.equal(textProblem('x\udc00'), 'surrogate');
    assert.equal(textProblem('\udc00\ud800'), 'surrogate');
    assert.equal(textProblem('😀 plain ü'), null);
    assert.equal(textProblem(''), null);
  });
});

describe('storable JSON', () => {
  test('depth: metadata itself is level 1; 32 levels pass, 33 do not, 5,000 do not', () => {
    assert.equal(storableJsonProblem('metadata', deep(MAX_JSON_DEPTH)), null);
    assert.equal(
      storableJsonProblem('metadata', deep(MAX_JSON_DEPTH + 1)),
      'metadata nested too deeply (max 32 levels)',
    );
    assert.equal(
      storableJsonProblem('metadata', deep(5000)),
      'metadata nested too deeply (max 32 levels)',
    );
    assert.equal(storableJsonProblem('tags', [[[]]]), null);
  });

  test('keys and values at any depth', () => {
    assert.equal(
      storableJsonProblem('metadata', { a: [{ b: 'x\u0000' }] }),
      'metadata must not contain NUL characters',
    );
    assert.equal(
      storableJsonProblem('metadata', { a: { '\ud800': 1 } }),
      'metadata must not contain unpaired UTF-16 surrogates',
    );
    assert.equal(storableJsonProblem('n', 1e308), null);
  });

  test('parseStorableJson: invalid UTF-8 and non-JSON are invalid JSON bodies', () => {
    const reason = (raw: Buffer) => {
      try {
        parseStorableJson(raw);
        return null;
      } catch (err) {
        assert.ok(err instanceof ApiError);
        return `${err.status} ${err.body}`;
      }
    };
    assert.equal(
      reason(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])),
      '400 invalid JSON body',
    );
    assert.equal(reason(Buffer.from('{"a":')), '400 invalid JSON body');
    assert.equal(
      reason(Buffer.from('{"a\\u0000":1}')),
      '400 field names must not contain NUL characters',
    );
    assert.equal(
      reason(Buffer.from('"\\ud800"')),
      '400 body must not contain unpaired UTF-16 surrogates',
    );
    assert.equal(reason(Buffer.from('{"a":{"b":"ok"}}')), null);
  });
});
