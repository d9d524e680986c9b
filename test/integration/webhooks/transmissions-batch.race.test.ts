import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { rememberTransmission } from '../../../src/db/transmissions.js';
import { appPlansDatabase } from '../../helpers/plans.js';
import { statementSizes } from '../../helpers/statements.js';

// A provider's transmission ids (card_psp's webhook-id, wallet_psp's PAYPAL-TRANSMISSION-ID)
// are remembered with their body's hash: the same id with another body is a replay over an
// edited body. Deliveries verified together are remembered by one statement (issue 28); each
// still gets its own answer, and a delivery sent twice at once is a redelivery, not a replay.

const db = appPlansDatabase(4);
const sha = (s: string) => createHash('sha256').update(s).digest();

test('remembered together, each answered for its own id and body', async (t) => {
  const remembered = await statementSizes(db.pool, 'provider_transmissions', 'INSERT');
  // Seen before: tx-known with body "known".
  assert.equal(await rememberTransmission(db.pool, 'wallet_psp', 'tx-known', sha('known')), 'new');

  const asked = [
    ...Array.from({ length: 12 }, (_, i) => ['wallet_psp', `tx-${i}`, `body-${i}`]),
    ['card_psp', 'tx-0', 'body-0'], // another provider's id space
    ['wallet_psp', 'tx-known', 'known'], // a redelivery
    ['wallet_psp', 'tx-known', 'edited'], // a replay over another body (a later statement)
  ] as const;
  const seen = await Promise.all(
    asked.map(([provider, id, body]) => rememberTransmission(db.pool, provider, id, sha(body))),
  );
  assert.deepEqual(seen, [...Array<string>(13).fill('new'), 'same_body', 'other_body']);

  const rows = await db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM provider_transmissions`,
  );
  assert.equal(Number(rows.rows[0]?.n), 14);
  const sizes = await remembered.sizes();
  t.diagnostic(`transmissions per statement: ${sizes.join(', ')}`);
  assert.ok(Math.max(...sizes) > 1, 'deliveries verified together shared a statement');
});

test('a delivery sent twice at once: the second waits for the first and is a redelivery', async () => {
  for (const [body, expected] of [
    ['same', 'same_body'],
    ['other', 'other_body'],
  ] as const) {
    const id = `tx-race-${body}`;
    // The first copy's statement has inserted the id and not committed yet.
    const first = await db.pool.connect();
    try {
      await first.query('BEGIN');
      await first.query(
        `INSERT INTO provider_transmissions (provider, transmission_id, body_sha256)
         VALUES ('wallet_psp', $1, $2)`,
        [id, sha('same')],
      );
      const second = rememberTransmission(db.pool, 'wallet_psp', id, sha(body));
      // The second copy waits on the first's row.
      for (let i = 0; i < 100; i++) {
        const waiting = await db.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query LIKE '%provider_transmissions%'`,
        );
        if (Number(waiting.rows[0]?.n) > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await first.query('COMMIT');
      assert.equal(await second, expected, `a second copy with the ${body} body`);
    } finally {
      first.release();
    }
  }
});
