import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, paymentBody, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { whileWritesHeld } from '../../helpers/statements.js';

// Concurrent creates share their statements (issue 28, db/statementBatcher.ts). A request
// whose row PostgreSQL refuses must fail alone: the batch it was in is run again item by item,
// and every other request of it is answered as if it had been alone.

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Batched shop' });
  // One buyer PostgreSQL refuses (a check of the operator's, say); the statement-level
  // trigger keeps the largest number of payments one statement inserted (a sequence is not
  // rolled back with its statement), for the diagnostic.
  await sql(
    gw.databaseUrl,
    `CREATE SEQUENCE largest_insert;
     CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.external_user_id = 'poison' THEN RAISE EXCEPTION 'refused by the test'; END IF;
       RETURN NEW;
     END $$;
     CREATE TRIGGER refuse_poison BEFORE INSERT ON payments FOR EACH ROW EXECUTE FUNCTION refuse_poison();
     CREATE FUNCTION count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE n bigint;
     BEGIN
       SELECT count(*) INTO n FROM inserted;
       IF n > (SELECT last_value FROM largest_insert) THEN PERFORM setval('largest_insert', n); END IF;
       RETURN NULL;
     END $$;
     CREATE TRIGGER count_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS inserted
       FOR EACH STATEMENT EXECUTE FUNCTION count_insert();`,
  );
});

after(async () => {
  await gw?.stop();
});

test('among concurrent creates, the one PostgreSQL refuses answers 500 alone; the others are created once', async (t) => {
  const users = Array.from({ length: 40 }, (_, i) => (i === 17 ? 'poison' : `batch-${i}`));
  const keys = users.map(() => randomUUID());
  const answers = await await whileWritesHeld(gw.databaseUrl, 'payments', () =>
    Promise.all(
      users.map((u, i) =>
        gw.v1(app, 'POST', '/v1/payments', paymentBody({ external_user_id: u }), {
          'Idempotency-Key': keys[i]!,
        }),
      ),
    ),
  );

  assertError(answers[17]!, 500, 'payment create failed');
  const created = answers.flatMap((res, i) => (i === 17 ? [] : [{ res, i }]));
  for (const { res } of created) assertStatus(res, 201);
  const bodies = created.map(({ res }) => res.json() as { payment_id: string; status: string });
  assert.ok(bodies.every((b) => /^[0-9a-f]{32}$/.test(b.payment_id) && b.status === 'initiated'));

  const rows = await sql<{ external_user_id: string; registered: boolean; key_state: string }>(
    gw.databaseUrl,
    `SELECT p.external_user_id, p.provider_ref IS NOT NULL AS registered, k.state AS key_state
     FROM payments p JOIN idempotency_keys k ON k.resource_id = p.id
     WHERE p.app_id = $1 ORDER BY p.external_user_id`,
    [app.app_id],
  );
  assert.deepEqual(
    rows,
    users
      .filter((u) => u !== 'poison')
      .sort()
      .map((u) => ({ external_user_id: u, registered: true, key_state: 'completed' })),
  );
  // Nothing of the refused request was written: its key is free again.
  const poisonKey = await sql(gw.databaseUrl, 'SELECT 1 FROM idempotency_keys WHERE key = $1', [
    keys[17],
  ]);
  assert.deepEqual(poisonKey, []);

  // A replay of every created request answers its first body.
  for (const { res, i } of created) {
    const again = await gw.v1(
      app,
      'POST',
      '/v1/payments',
      paymentBody({ external_user_id: users[i] }),
      {
        'Idempotency-Key': keys[i]!,
      },
    );
    assertStatus(again, 201);
    assert.equal(again.text, res.text);
  }
  const [largest] = await sql<{ n: string }>(
    gw.databaseUrl,
    'SELECT last_value AS n FROM largest_insert',
  );
  t.diagnostic(`largest insert statement: ${largest?.n} payments`);
  assert.ok(Number(largest?.n) > 1, 'concurrent creates shared a statement');
});
