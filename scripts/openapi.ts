/**
 * Writes docs/openapi.json from the code (npm run openapi). test/unit/openapi.document.test.ts
 * fails while the committed file differs from what the code generates.
 */
import { writeFileSync } from 'node:fs';
import { openApiJson } from '../src/http/openapi/file.js';

const target = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(target, openApiJson());
console.log(`wrote ${target.pathname}`);
