import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

// The layering of docs/adr/0001 as a test: every relative import in src/ (type-only ones
// too: they tie the files together just the same) read from the source text.

const SRC = path.resolve('src');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

/** src-relative file -> the src-relative files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec?.startsWith('.')) continue;
      const resolved = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
      targets.push(path.relative(SRC, resolved));
    }
    graph.set(path.relative(SRC, file), targets);
  }
  return graph;
}

const graph = importGraph();

/** Some cycle through the graph as a list of files, or null. */
function findCycle(g: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): string[] | null => {
    if (state.get(f) === 'done') return null;
    if (state.get(f) === 'open') return [...stack.slice(stack.indexOf(f)), f];
    state.set(f, 'open');
    stack.push(f);
    for (const t of g.get(f) ?? []) {
      const c = visit(t);
      if (c) return c;
    }
    stack.pop();
    state.set(f, 'done');
    return null;
  };
  for (const f of g.keys()) {
    const c = visit(f);
    if (c) return c;
  }
  return null;
}

function importsInto(prefix: string, from: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    if (!from(file)) continue;
    for (const t of targets) if (t.startsWith(prefix)) out.push(`${file} -> ${t}`);
  }
  return out;
}

const inside = (dir: string) => (file: string) => file.startsWith(`${dir}/`);

test('the import reader sees the imports it must judge', () => {
  // Guards the test itself: a reader that found nothing would pass every rule below.
  assert.ok(graph.size > 100, `only ${graph.size} files read`);
  assert.ok(graph.get('app.ts')?.includes('gateway.ts'));
  assert.ok(graph.get('app.ts')?.includes('simulators/index.ts'));
  assert.ok(graph.get('simulators/common.ts')?.includes('simulators/db/objects.ts'));
  // A cycle made up here is found.
  const made = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
  ]);
  assert.deepEqual(findCycle(made), ['a.ts', 'b.ts', 'c.ts', 'a.ts']);
});

test('no import cycle in src/', () => {
  assert.equal(findCycle(graph), null);
});

test('only the process assembly mounts the simulators: no core file imports them', () => {
  const core = (f: string) => !f.startsWith('simulators/') && f !== 'app.ts';
  assert.deepEqual(importsInto('simulators/', core), []);
});

test('the simulators and the provider adapters share no code, either way (issue 23)', () => {
  // A simulator reusing the adapter's reading of the wire (a signed message, a status map)
  // could not catch the adapter's mistake: each side reads the provider's protocol alone.
  assert.deepEqual(importsInto('providers/', inside('simulators')), []);
  assert.deepEqual(importsInto('simulators/', inside('providers')), []);
});

test("the simulators' state and clock are theirs: the gateway's code neither holds nor reads them", () => {
  const core = (f: string) => !f.startsWith('simulators/') && f !== 'app.ts';
  assert.deepEqual(importsInto('simulators/db/', core), []);
  assert.deepEqual(importsInto('simulators/clock.ts', core), []);
});

test('the simulators share no HTTP code with the gateway', () => {
  assert.deepEqual(importsInto('http/', inside('simulators')), []);
  assert.deepEqual(importsInto('gateway.ts', inside('simulators')), []);
});

test('only the process assembly sees the Gateway object', () => {
  const assembly = (f: string) =>
    f === 'app.ts' ||
    f === 'main.ts' ||
    f === 'workers.ts' ||
    f === 'http/server.ts' ||
    f.startsWith('http/routes/');
  assert.deepEqual(
    importsInto('gateway.ts', (f) => !assembly(f) && f !== 'gateway.ts'),
    [],
  );
});

test('domain/ is pure: it imports nothing outside itself', () => {
  const out = importsInto('', inside('domain')).filter(
    (e) => !e.split(' -> ')[1]?.startsWith('domain/'),
  );
  assert.deepEqual(out, []);
});

test('SQL is written only in db/ (and migrations)', () => {
  const sql = /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/;
  const outside = [...graph.keys()].filter(
    (f) =>
      !f.startsWith('db/') &&
      !f.startsWith('simulators/db/') &&
      sql.test(readFileSync(path.join(SRC, f), 'utf8')),
  );
  assert.deepEqual(outside, []);
});

// The simulators' tables live in their own schema (src/simulators/db/migrations); the
// gateway's code neither reads nor writes them, nor names them (issue 23).
const SIMULATOR_TABLES = /\bpaygate_sim\b|\bsim_objects\b/;

/** The gateway's migrations before the simulators had their schema made and dropped the old table. */
const LAST_MIGRATION_NAMING_SIM_OBJECTS = 32;

test("no gateway module or later migration names the simulators' tables", () => {
  // Guards the rule itself: a module naming them is caught.
  assert.ok(SIMULATOR_TABLES.test('SELECT data FROM paygate_sim.sim_objects WHERE id = $1'));
  assert.ok(SIMULATOR_TABLES.test("const HOT = ['payments', 'sim_objects'];"));
  assert.ok(!SIMULATOR_TABLES.test('SELECT data FROM payments'));
  const modules = [...graph.keys()].filter(
    (f) =>
      !f.startsWith('simulators/') &&
      SIMULATOR_TABLES.test(readFileSync(path.join(SRC, f), 'utf8')),
  );
  assert.deepEqual(modules, []);
  const migrations = readdirSync(path.join(SRC, 'migrations')).filter(
    (f) =>
      Number(f.slice(0, 4)) > LAST_MIGRATION_NAMING_SIM_OBJECTS &&
      SIMULATOR_TABLES.test(readFileSync(path.join(SRC, 'migrations', f), 'utf8')),
  );
  assert.deepEqual(migrations, []);
  // The simulators' own migrations make their tables in their schema.
  const own = readdirSync(path.join(SRC, 'simulators', 'db', 'migrations'));
  assert.ok(own.length > 0);
  for (const f of own) {
    const text = readFileSync(path.join(SRC, 'simulators', 'db', 'migrations', f), 'utf8');
    for (const m of text.matchAll(
      /CREATE (?:TABLE|INDEX)[^(;]*?\bON\s+([\w.]+)|CREATE TABLE\s+([\w.]+)/g,
    )) {
      assert.match(m[1] ?? m[2] ?? '', /^paygate_sim\./, `${f}: ${m[0]}`);
    }
  }
});
