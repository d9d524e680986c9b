/**
 * The configuration tables of docs/operations.md, rendered from the variables' schemas
 * (src/config/schema.ts, src/simulators/settings.ts). Each sits
 * between two HTML comments; `npm run docs:config` rewrites what is between them, and
 * test/unit/config.docs.test.ts fails while the committed doc differs.
 */
import * as prettier from 'prettier';
import { GATEWAY_SETTINGS, type SettingDoc } from '../src/config.js';
import { SIMULATORS_SETTINGS } from '../src/simulators/settings.js';

export const OPERATIONS_MD = new URL('../docs/operations.md', import.meta.url);

const TABLES: { name: string; rows: readonly SettingDoc[] }[] = [
  { name: 'gateway configuration table', rows: GATEWAY_SETTINGS },
  { name: 'simulators configuration table', rows: SIMULATORS_SETTINGS },
];

function markers(name: string): [string, string] {
  return [
    `<!-- ${name}: generated from its schema (src/config/schema.ts, src/simulators/settings.ts) by npm run docs:config; edit it there -->`,
    `<!-- end of ${name} -->`,
  ];
}

/** The table as prettier lays it out, so that `npm run format:check` agrees with it. */
async function table(rows: readonly SettingDoc[]): Promise<string> {
  const cells = (r: string[]) => {
    // A pipe would end the cell early in the rendered table.
    if (r.some((c) => c.includes('|'))) throw new Error(`a "|" in a table cell: ${r.join(' ')}`);
    return `| ${r.join(' | ')} |`;
  };
  const md = [
    cells(['variable', 'default', 'meaning']),
    cells(['-', '-', '-']),
    ...rows.map((r) => cells([r.variable, r.default, r.meaning])),
  ].join('\n');
  const options = (await prettier.resolveConfig(OPERATIONS_MD)) ?? {};
  return (await prettier.format(md, { ...options, parser: 'markdown' })).trimEnd();
}

/** `doc` with every generated table replaced by what the code says now. */
export async function withConfigTables(doc: string): Promise<string> {
  let out = doc;
  for (const t of TABLES) {
    const [begin, end] = markers(t.name);
    const from = out.indexOf(begin);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`docs/operations.md lacks ${begin} ... ${end}`);
    out = `${out.slice(0, from + begin.length)}\n\n${await table(t.rows)}\n\n${out.slice(to)}`;
  }
  return out;
}
