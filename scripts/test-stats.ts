/**
 * Measures the test tree (issue 23 part 6): file-local helper functions per test file,
 * helpers written twice (same name, or same body), imports from src/ by kind, and the areas.
 *
 *   npx tsx scripts/test-stats.ts [dir]        (dir: test/integration unless given)
 *   npx tsx scripts/test-stats.ts --json [dir]
 *
 * A helper is a top-level `function` declaration or a top-level `const x = (...) => ...` /
 * `function (...)` that is not itself a test. A src/ import is
 *   harness   starting the gateway, its configuration, the database and its pool;
 *   contract  a type-only import (a shape of the public contract);
 *   internals anything else (services, db queries, providers, simulators).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const HARNESS = [
  'src/gateway',
  'src/app',
  'src/config',
  'src/logger',
  'src/workers',
  'src/http/server',
  'src/db/pool',
  'src/db/connection',
  'src/db/migrate',
  'src/db/embedded',
  'src/simulators/index',
  'src/providers/testMode',
];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

interface Helper {
  file: string;
  name: string;
  hash: string;
}

type Kind = 'harness' | 'contract' | 'internals';

function srcKind(spec: string, typeOnly: boolean): Kind {
  if (typeOnly) return 'contract';
  const rel = spec.slice(spec.indexOf('src/')).replace(/\.js$/, '');
  return HARNESS.some((h) => rel === h || rel.startsWith(`${h}/`)) ? 'harness' : 'internals';
}

function isTypeOnly(imp: ts.ImportDeclaration): boolean {
  const clause = imp.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const named = clause.namedBindings;
  return !!named && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly);
}

/** Parameters and body, whitespace folded: the same function under any name. */
function fnHash(fn: ts.SignatureDeclarationBase & { body?: ts.Node }, sf: ts.SourceFile): string {
  const text = `${fn.parameters.map((p) => p.getText(sf)).join(',')}=>${fn.body?.getText(sf) ?? ''}`;
  return createHash('sha1').update(text.replace(/\s+/g, ' ')).digest('hex').slice(0, 12);
}

function measure(dir: string) {
  const list = files(dir);
  const helpers: Helper[] = [];
  const imports: Record<Kind, number> = { harness: 0, contract: 0, internals: 0 };
  const filesWithInternals = new Set<string>();
  const filesWithSrc = new Set<string>();
  const areas = new Map<string, number>();
  for (const file of list) {
    const rel = path.relative(dir, file);
    const area = rel.includes(path.sep) ? rel.split(path.sep)[0]! : rel.split('.')[0]!;
    areas.set(area, (areas.get(area) ?? 0) + 1);
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const st of sf.statements) {
      if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
        const spec = st.moduleSpecifier.text;
        if (!/(^|\/)src\//.test(spec) || spec.includes('/dashboard/') || spec.includes('/sdk/'))
          continue;
        const kind = srcKind(spec, isTypeOnly(st));
        imports[kind] += 1;
        filesWithSrc.add(rel);
        if (kind === 'internals') filesWithInternals.add(rel);
      } else if (ts.isFunctionDeclaration(st) && st.name && st.body) {
        helpers.push({ file: rel, name: st.name.text, hash: fnHash(st, sf) });
      } else if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) {
          const init = d.initializer;
          if (!init || !ts.isIdentifier(d.name)) continue;
          if (ts.isArrowFunction(init) || ts.isFunctionExpression(init))
            helpers.push({ file: rel, name: d.name.text, hash: fnHash(init, sf) });
        }
      }
    }
  }
  const byName = new Map<string, Set<string>>();
  const byBody = new Map<string, Helper[]>();
  for (const h of helpers) {
    byName.set(h.name, (byName.get(h.name) ?? new Set()).add(h.file));
    byBody.set(h.hash, [...(byBody.get(h.hash) ?? []), h]);
  }
  const dupNames = [...byName].filter(([, f]) => f.size > 1).sort((a, b) => b[1].size - a[1].size);
  const dupBodies = [...byBody.values()].filter((hs) => hs.length > 1);
  const perFile = new Map<string, number>();
  for (const h of helpers) perFile.set(h.file, (perFile.get(h.file) ?? 0) + 1);
  return {
    dir,
    files: list.length,
    filesWithHelpers: perFile.size,
    helpers: helpers.length,
    helpersPerFile: Number((helpers.length / Math.max(1, list.length)).toFixed(2)),
    maxPerFile: [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 5),
    namesInSeveralFiles: dupNames.length,
    helpersUnderSharedNames: dupNames.reduce((n, [, f]) => n + f.size, 0),
    topSharedNames: dupNames.slice(0, 15).map(([n, f]) => `${n} x${f.size}`),
    identicalBodies: dupBodies.length,
    helpersWithIdenticalBodies: dupBodies.reduce((n, hs) => n + hs.length, 0),
    identicalBodyExamples: dupBodies.slice(0, 10).map((hs) => hs.map((h) => `${h.file}:${h.name}`)),
    srcImports: imports,
    filesImportingSrc: filesWithSrc.size,
    filesImportingInternals: filesWithInternals.size,
    areas: areas.size,
    areaList: [...areas].map(([a, n]) => `${a}(${n})`).join(' '),
  };
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const dir = args.find((a) => !a.startsWith('--')) ?? 'test/integration';
const result = measure(dir);
if (json) console.log(JSON.stringify(result, null, 2));
else
  for (const [k, v] of Object.entries(result))
    console.log(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
