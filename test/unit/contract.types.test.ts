/**
 * The SDK's and the dashboard's wire types are generated from docs/openapi.json
 * (npm run types): the committed files are exactly what the document renders, and a change
 * to the document shows up in them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DOCUMENT, renderAll, renderTarget, TARGETS } from '../../scripts/contract-types.js';

test('sdk/src/contract.gen.ts and dashboard/src/contract.gen.ts are fresh (npm run types)', async () => {
  const rendered = await renderAll();
  assert.deepEqual(
    [...rendered.keys()],
    TARGETS.map((t) => t.file),
  );
  for (const [file, text] of rendered) {
    assert.equal(readFileSync(file, 'utf8'), text, `${file} is stale: run npm run types`);
  }
});

test('a field added to the document appears in both generated files (the check can fail)', async () => {
  const doc = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
  doc.components.schemas.Payment.properties.added_for_test = { type: 'string' };
  for (const target of TARGETS) {
    const text = await renderTarget(doc, target);
    assert.notEqual(text, readFileSync(target.file, 'utf8'), target.file);
    assert.match(text, /added_for_test\?: string;/);
  }
});

test('the dashboard reads money sums as number or string, the SDK single amounts as numbers', () => {
  const dashboard = readFileSync('dashboard/src/contract.gen.ts', 'utf8');
  assert.match(dashboard, /available_minor: number \| string;/);
  assert.match(dashboard, /\n {6}amount_minor: number;/);
  const sdk = readFileSync('sdk/src/contract.gen.ts', 'utf8');
  assert.doesNotMatch(sdk, /number \| string/);
  assert.match(sdk, /CreatePaymentParams: \{/);
});
