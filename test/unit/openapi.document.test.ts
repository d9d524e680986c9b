/**
 * The OpenAPI document: valid OpenAPI 3.1 by a real validator, committed as generated, and
 * every example in it valid against its own schema.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument, withPropertyExamples } from '../../src/http/openapi/document.js';
import { openApiJson } from '../../src/http/openapi/file.js';
import { CREATE_PAYMENT, CREATE_REFUND } from '../../src/domain/schemas.js';

type Json = Record<string, unknown>;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

test('the document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
  const validator = new Validator();
  const result = await validator.validate(buildOpenApiDocument());
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
  assert.equal(validator.version, '3.1');
});

test('the validator refuses a broken document (the check can fail)', async () => {
  const broken = buildOpenApiDocument();
  ((broken.paths as Json)['/v1/payments'] as Json).post = { responses: { 201: {} } };
  const result = await new Validator().validate(broken);
  assert.equal(result.valid, false);
});

test('docs/openapi.json is exactly what the code generates (npm run openapi)', () => {
  const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
  assert.equal(committed, openApiJson(), 'docs/openapi.json is stale: run npm run openapi');
});

test('the document is generated from the schemas the parsers use', () => {
  const doc = buildOpenApiDocument();
  const create = ((doc.paths as Json)['/v1/payments'] as Json).post as Json;
  const body = (create.requestBody as Json).content as Record<string, Json>;
  assert.equal(body['application/json']?.schema, CREATE_PAYMENT.schema);
  const refund = ((doc.paths as Json)['/v1/refunds'] as Json).post as Json;
  const bad = ((refund.responses as Json)['400'] as Json).content as Record<string, Json>;
  const schema = bad['text/plain']?.schema as { anyOf: Json[] };
  const listed = JSON.stringify(schema.anyOf);
  for (const text of [
    'reason must be at most 500 characters',
    'amount_minor must be a positive integer',
    'payment_id must be a string',
  ]) {
    assert.ok(listed.includes(text), `${text} listed`);
  }
  assert.ok(listed.includes(`(${CREATE_REFUND.schema.required.join('|')})`));
});

/** Every `examples` of a media type, with the pointer to its schema. */
function mediaExamples(node: unknown, path: string, out: { at: string; value: unknown }[]) {
  if (typeof node !== 'object' || node === null) return;
  const n = node as Json;
  if (n.schema && n.examples && typeof n.examples === 'object' && !Array.isArray(n.examples)) {
    for (const [name, ex] of Object.entries(n.examples as Record<string, Json>)) {
      out.push({ at: `${path}/schema|${name}`, value: ex.value });
    }
  }
  for (const [k, v] of Object.entries(n)) {
    mediaExamples(v, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
}

test('every request and response example matches its schema', () => {
  const doc = buildOpenApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const examples: { at: string; value: unknown }[] = [];
  mediaExamples(doc.paths, '#/paths', examples);
  mediaExamples(doc.webhooks, '#/webhooks', examples);
  assert.ok(examples.length > 200, `found ${examples.length} examples`);
  for (const { at, value } of examples) {
    const [pointer] = at.split('|');
    const validate = ajv.getSchema(`openapi.json${pointer as string}`);
    assert.ok(validate, `schema at ${pointer}`);
    assert.ok(validate(value), `${at}: ${JSON.stringify(validate.errors)}`);
  }
});

test("an answer's example takes a required property it leaves out from the property's own examples, in the schema's order", () => {
  const partial = {
    refund_id: '0123456789abcdef0123456789abcdef',
    payment_id: '0123456789abcdef0123456789abcdef',
    status: 'succeeded',
    amount_minor: 5000,
    currency: 'IDR',
    provider_ref: '',
    reason: '',
  };
  const filled = withPropertyExamples('Refund', partial) as Record<string, unknown>;
  assert.deepEqual(Object.keys(filled), [...Object.keys(partial), 'created_at']);
  assert.equal(filled.created_at, '2025-01-02T03:04:05.678Z');
  // A whole example is left as it is (same object); an optional property is never added.
  const whole = { ...partial, created_at: '2026-11-26T00:00:00.000Z' };
  assert.equal(withPropertyExamples('Refund', whole), whole);
});
