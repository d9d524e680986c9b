/**
 * `npm start`: runs the compiled gateway (node dist/main.js) in this process, building it
 * first when dist/ or dashboard/dist is missing or older than its sources. Plain JavaScript
 * and no dev dependency: after `npm run build`, `npm ci --omit=dev` is enough to run it.
 * `npm run simulators` (argument `simulators`): the same for the test-mode provider
 * simulators as their own process (dist/simulators/main.js), which need no dashboard.
 */
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { ROOT, build, canBuild, outOfDate } from './build.js';

const simulators = process.argv[2] === 'simulators';
const stale = outOfDate().filter((part) => !simulators || part === 'server');
if (stale.length > 0) {
  const what = stale.join(' and ');
  if (canBuild()) {
    process.stdout.write(`building the ${what} (missing or older than the sources)\n`);
    try {
      build(stale);
    } catch (err) {
      process.stderr.write(`startup error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    }
  } else if (stale.includes('server')) {
    process.stderr.write(
      'startup error: dist/ is missing or older than src/ and the build tools are not installed ' +
        '(npm ci --omit=dev): run npm run build where the dev dependencies are installed, then start\n',
    );
    process.exit(1);
  } else {
    // Production installs may ship the server without a dashboard build; /dashboard says so.
    process.stderr.write(
      `the ${what} build is missing or out of date; it cannot be rebuilt here\n`,
    );
  }
}
const entry = simulators ? 'dist/simulators/main.js' : 'dist/main.js';
await import(pathToFileURL(path.join(ROOT, entry)).href);
