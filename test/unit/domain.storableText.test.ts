import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REPLACEMENT_CHARACTER, storableText } from '../../src/domain/storableText.js';
import { textProblem } from '../../src/domain/jsonInput.js';

test('storableText: NUL and unpaired surrogates become U+FFFD, everything else is kept', () => {
  const cases: [string, string][] = [
    ['Card denied', 'Card denied'],
    ['a\u0000b', 'a\uFFFDb'],
    ['\u0000\u0000', '\uFFFD\uFFFD'],
    ['lone high \uD800 end', 'lone high \uFFFD end'],
    ['lone low \uDC00', 'lone low \uFFFD'],
    ['reversed \uDC00\uD800', 'reversed \uFFFD\uFFFD'],
    ['pair \uD83D\uDE00 kept', 'pair \uD83D\uDE00 kept'],
    ['high at end \uD83D', 'high at end \uFFFD'],
    ['tab\tand newline\n', 'tab\tand newline\n'],
    [
      'Bank declined: "Insufficient funds" \u00e9\u4e2d',
      'Bank declined: "Insufficient funds" \u00e9\u4e2d',
    ],
    ['', ''],
  ];
  for (const [input, expected] of cases) {
    const out = storableText(input);
    assert.equal(out, expected, JSON.stringify(input));
    // What comes out is text PostgreSQL can store.
    assert.equal(textProblem(out), null, JSON.stringify(input));
  }
  assert.equal(REPLACEMENT_CHARACTER, '\uFFFD');
});
