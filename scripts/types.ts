/** `npm run types`: writes the SDK's and the dashboard's generated wire types (scripts/contract-types.ts). */
import { writeFile } from 'node:fs/promises';
import { renderAll } from './contract-types.js';

for (const [file, text] of await renderAll()) {
  await writeFile(file, text);
  console.log(`wrote ${file}`);
}
