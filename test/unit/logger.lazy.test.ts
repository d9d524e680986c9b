import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, lazyChildLogger } from '../../src/logger.js';

// Issue 28: a request's logger is made lazily; what it logs is what pino's child would log.

test("the lazy request logger logs with the request's bindings and the parent's redaction", () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const parent = createLogger('info', sink);
  const log = lazyChildLogger(parent, { reqId: 'req-7' }, {});
  assert.equal(log.level, 'info');
  log.debug('below the level');
  log.info({ operator: { password: 'hunter2' }, n: 1 }, 'hello');
  log.child({ step: 'x' }).warn('from a grandchild');
  assert.equal(lines.length, 2);
  assert.equal(lines[0]?.reqId, 'req-7');
  assert.equal(lines[0]?.msg, 'hello');
  assert.deepEqual(lines[0]?.operator, { password: '[redacted]' });
  assert.equal(lines[0]?.n, 1);
  assert.equal(lines[1]?.reqId, 'req-7');
  assert.equal(lines[1]?.step, 'x');
  assert.equal(lines[1]?.msg, 'from a grandchild');
});
