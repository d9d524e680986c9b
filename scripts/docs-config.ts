/** Writes the configuration tables of docs/operations.md from src/config.ts (npm run docs:config). */
import { readFileSync, writeFileSync } from 'node:fs';
import { OPERATIONS_MD, withConfigTables } from './configDocs.js';

writeFileSync(OPERATIONS_MD, await withConfigTables(readFileSync(OPERATIONS_MD, 'utf8')));
console.log(`wrote ${OPERATIONS_MD.pathname}`);
