import { newDeliveryId } from '../domain/ids.js';
import { readEventBody, type StoredEventBody } from './eventBody.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';

/** NOTIFY channel that wakes the delivery workers when a delivery commits. */
export const DELIVERY_CHANNEL = 'paygate_delivery';

/** A fresh delivery of an event; call in the transaction that writes the event or asks for it. */
export async function insertDelivery(
  tx: Queryable,
  eventId: string,
  appId: string,
): Promise<string> {
  const deliveryId = newDeliveryId();
  await tx.query({
    name: 'outbox_insert_delivery',
    text: `INSERT INTO deliveries (id, event_id, app_id) VALUES ($1, $2, $3)`,
    values: [deliveryId, eventId, appId],
  });
  await tx.query(`NOTIFY ${DELIVERY_CHANNEL}`);
  return deliveryId;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  event_id: string;
  app_id: string;
  /** Null for the app's default endpoint (its webhook_url). */
  endpoint_id: string | null;
  body: string;
  /** The endpoint's URL, or the app's webhook_url for the default endpoint. */
  url: string | null;
  secret_enc: string;
  /** Set during a rotation window: the secret X-PAY-Signature stays under until rotates_at. */
  previous_secret_enc: string | null;
  rotates_at: Date | null;
  /** A disabled endpoint's deliveries are given up without a request. */
  endpoint_disabled: boolean;
  /** Why the stored body cannot be read back (then `body` is empty): given up without a request. */
  body_unreadable: string | null;
  mode: string;
}

/**
 * A target is an endpoint, or an app's default endpoint: at most `perTarget` of its
 * deliveries are in flight across every instance, so a slow receiver holds that many worker
 * slots and never all of them (docs/api.md#delivery-and-retries). Saturated targets are
 * skipped in the scan; a batch takes at most what each target has left, and rows locked
 * beyond that are released unchanged at the end of the statement.
 *
 * The picked rows are found by primary key whatever the statistics (`id = ANY`): on a young
 * installation's small table a generic plan otherwise joined them by hash over a sequential
 * scan of all deliveries, for every claim (test storage/plans-delivery.happy).
 *
 * `limit` is written into the text, not a parameter: the delivery worker's connection plans
 * these statements once, generically (claimStatements), and a generic plan of `LIMIT $n`
 * assumes a tenth of the due rows, which during a backlog of a million pending deliveries
 * could prefer reading them all and sorting to the due index's first rows.
 */
function claimSql(
  limit: number,
  leaseMs: string,
  perTarget: string,
  /** Deliveries recorded by the same statement: not due here (see claimStatements). */
  recorded?: string,
  /** Deliveries whose current claim the same statement records: not busy here. */
  freed?: string,
): string {
  const notRecorded = freed ? `\n    AND id NOT IN ${freed}` : '';
  const notRecordedD = recorded ? `\n    AND d.id <> ALL(${recorded})` : '';
  return `
busy AS (
  SELECT COALESCE(endpoint_id, app_id) AS target, count(*) AS n FROM deliveries
  WHERE status = 'pending' AND locked_until IS NOT NULL AND locked_until >= now()${notRecorded}
  GROUP BY 1),
due AS (
  SELECT d.id, COALESCE(d.endpoint_id, d.app_id) AS target, d.next_attempt_at FROM deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at <= now()
    AND (d.locked_until IS NULL OR d.locked_until < now())${notRecordedD}
    AND NOT EXISTS (SELECT 1 FROM busy b WHERE b.target = COALESCE(d.endpoint_id, d.app_id) AND b.n >= ${perTarget})
  ORDER BY d.next_attempt_at
  LIMIT ${limit}
  FOR UPDATE OF d SKIP LOCKED),
picked AS (
  SELECT id FROM (
    SELECT due.id, row_number() OVER (PARTITION BY due.target ORDER BY due.next_attempt_at) AS rn,
      COALESCE(b.n, 0) AS n
    FROM due LEFT JOIN busy b ON b.target = due.target) ranked
  WHERE rn + n <= ${perTarget})
UPDATE deliveries d
SET locked_until = now() + ${leaseMs} * interval '1 millisecond', attempts = d.attempts + 1, updated_at = now()
FROM picked, outbound_events e, apps a
WHERE d.id = ANY(ARRAY(SELECT id FROM picked)) AND d.id = picked.id AND e.id = d.event_id
  AND a.id = d.app_id
RETURNING d.id, d.attempts, d.event_id, d.app_id, d.endpoint_id, e.event_type, e.body,
  e.body_codec, e.body_packed, e.body_size, a.mode,
  CASE WHEN d.endpoint_id IS NULL THEN a.webhook_url
    ELSE (SELECT url FROM webhook_endpoints WHERE id = d.endpoint_id) END AS url,
  CASE WHEN d.endpoint_id IS NULL THEN a.webhook_secret_enc
    ELSE (SELECT secret_enc FROM webhook_endpoints WHERE id = d.endpoint_id) END AS secret_enc,
  CASE WHEN d.endpoint_id IS NULL THEN a.previous_webhook_secret_enc
    ELSE (SELECT previous_secret_enc FROM webhook_endpoints WHERE id = d.endpoint_id) END
    AS previous_secret_enc,
  CASE WHEN d.endpoint_id IS NULL THEN a.keys_rotate_at
    ELSE (SELECT rotates_at FROM webhook_endpoints WHERE id = d.endpoint_id) END AS rotates_at,
  COALESCE((SELECT disabled FROM webhook_endpoints WHERE id = d.endpoint_id), false)
    AS endpoint_disabled,
  -- Evaluated only for a row claimed: a claim that took deliveries commits synchronously.
  set_config('synchronous_commit', 'on', true) AS durable`;
}

/**
 * Claims take turns across instances: each runs in a transaction that first takes this
 * lock. A claim counts its targets' leases in its statement's snapshot, and a snapshot taken
 * while another instance's claim was still uncommitted misses that claim's leases; SKIP
 * LOCKED then hands it other rows of the same endpoint, and both take up to the cap (six
 * workers that started together held 15 deliveries of an endpoint whose cap was 3, test
 * delivery/claim-cap.race). Under READ COMMITTED each statement takes its own snapshot, so
 * the claim after the lock sees every claim that held the lock before it as committed. The
 * lock is released at commit, after the commit is visible.
 *
 * Held only between two statements sent back to back, never while the process waits on
 * anything else. A process frozen while holding it (stopped, swapped out) would stall every
 * instance's claims: the transaction's session is ended after 5 s idle in it, which releases
 * the lock and rolls the claim back (its rows stay due).
 */
export const CLAIM_TURN_SQL =
  "BEGIN; SET LOCAL idle_in_transaction_session_timeout = '5s'; " +
  "SELECT pg_advisory_xact_lock(hashtext('paygate delivery claims'))";

/**
 * Claims up to \`limit\` due deliveries for one attempt each under a lease of \`leaseMs\`,
 * at most \`perTarget\` in flight per endpoint across every instance: claims take turns
 * (CLAIM_TURN_SQL), SKIP LOCKED keeps them off rows another transaction is recording, and a
 * worker that dies loses its claim with the lease. Three round trips: the turn, the
 * statement, the commit.
 *
 * With \`recorded\`, the same statement first records those finished attempts, as
 * recordDeliveryAttempts does (claimStatements): one commit for both. Recording them later
 * than their answers changes nothing that could be lost: until that commit each delivery is
 * pending under its lease, and sent again once the lease runs out. With \`limit\` 0 nothing
 * can be claimed: the statement records alone, without a turn.
 *
 * A claim that took deliveries is also the durability barrier of what it took, on any pool:
 * its RETURNING turns synchronous_commit on for its own transaction (set_config(..., true),
 * evaluated once per row returned, so only when a row was claimed), and a claim that took
 * rows wrote WAL under an xid, so its commit waits for the flush up to its own commit record,
 * which covers the commit of every delivery it returns (docs/adr/0002). A claim that took
 * nothing waits for no flush, whether it recorded attempts or not: a recorded attempt lost
 * with a crash is sent again (at least once), so it needs no barrier of its own.
 */
export async function claimDueDeliveries(
  pool: Pool,
  limit: number,
  leaseMs: number,
  perTarget: number,
  recorded: readonly DeliveryAttempt[] = [],
): Promise<ClaimedDelivery[]> {
  if (limit === 0) return claimStatement(pool, limit, leaseMs, perTarget, recorded);
  return withTransaction(
    pool,
    (c) => claimStatement(c, limit, leaseMs, perTarget, recorded),
    CLAIM_TURN_SQL,
  );
}

/**
 * The claim's statement alone, in the caller's transaction, which took its turn
 * (claimDueDeliveries); without one, only where no other claim runs (the plan tests).
 */
export async function claimStatement(
  db: Queryable,
  limit: number,
  leaseMs: number,
  perTarget: number,
  recorded: readonly DeliveryAttempt[] = [],
): Promise<ClaimedDelivery[]> {
  const sql = claimStatements(limit);
  const rows = (
    await db.query<ClaimedDelivery & StoredEventBody>(
      recorded.length === 0
        ? { name: `deliveries_claim_${limit}`, text: sql.claim, values: [leaseMs, perTarget] }
        : {
            name: `deliveries_record_claim_${limit}`,
            text: sql.recordClaim,
            values: [...attemptColumns(recorded), leaseMs, perTarget],
          },
    )
  ).rows;
  // The body as it was written (stored deflated, db/eventBody.ts): every attempt signs and
  // sends these same bytes. A body that cannot be read back fails its own delivery only.
  for (const r of rows) {
    const read = readEventBody(r);
    r.body = 'body' in read ? read.body : '';
    r.body_unreadable = 'unreadable' in read ? read.unreadable : null;
  }
  return rows;
}

// One statement for a batch of attempts (ordered as given; a delivery at most once): each
// attempt row and its delivery's new state commit together.
//
// Only the delivery's current claim changes its state (docs/operations.md "Delivery attempts,
// written in batches"): the attempt is the current claim when its number is the delivery's
// `attempts` and the lease is still set (a claim sets it, the record of that claim clears
// it). Anything else is stale (its lease ran out and another instance claimed the delivery
// again) or already recorded (the statement that recorded it committed but its client saw
// an error, and it is written again):
// - a stale attempt is a send that happened: its history row is written (once), and the
//   delivery's state is left to the current claim, with one exception: a stale `delivered`
//   is a fact (the receiver has the event), so a pending delivery becomes delivered; the
//   current claim's lease is kept, and its own record then only writes its history row and
//   clears the lease;
// - an attempt already recorded changes nothing and writes no second history row.
// `lk` locks each delivery of the batch (in id order, found by primary key whatever the
// statistics, as the claim's rows are) and reads it as it is now: a row that
// another transaction is writing is waited for and read again as that one committed it
// (READ COMMITTED), so a rewrite racing its own first write still sees it recorded.
// A stale attempt's history row is written once by the unique index on (delivery_id,
// attempt, started_at) (migration 0040): a rewrite carries the attempt's own started_at
// (measured once, delivery/worker.ts), so its insert conflicts with the first write's row,
// committed or still committing (the insert waits for that one), and does nothing. A check
// of the table instead would read it as of the statement's start and miss a first write
// that commits meanwhile. `logged` is what was written: the endpoints' failure records
// count an attempt once.
const RECORD_CTES = `
a AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::float8[], $6::int[],
    $7::timestamptz[], $8::int[], $9::text[]) WITH ORDINALITY
    AS t(id, verdict, status_code, error, delay_ms, attempt, started_at, duration_ms, response_body, ord)),
lk AS (
  SELECT a.*, d.endpoint_id,
    d.attempts = a.attempt AND d.locked_until IS NOT NULL AS open_claim,
    (d.status = 'pending' AND d.attempts = a.attempt AND d.locked_until IS NOT NULL)
      OR (a.verdict = 'delivered' AND d.attempts <> a.attempt
        AND d.status IN ('pending', 'dead')) AS settles,
    (d.attempts = a.attempt AND d.locked_until IS NOT NULL) OR d.attempts <> a.attempt AS logs
  FROM a JOIN deliveries d ON d.id = a.id
  WHERE d.id = ANY($1::text[])
  ORDER BY d.id
  FOR NO KEY UPDATE OF d),
upd AS (
  UPDATE deliveries d SET
    status = CASE WHEN NOT k.settles THEN d.status WHEN k.verdict = 'delivered' THEN 'delivered'
      WHEN k.verdict = 'dead' THEN 'dead' ELSE 'pending' END,
    last_status_code = CASE WHEN k.settles THEN k.status_code ELSE d.last_status_code END,
    last_error = CASE WHEN k.settles THEN k.error ELSE d.last_error END,
    last_response_body = CASE WHEN k.settles THEN k.response_body ELSE d.last_response_body END,
    locked_until = CASE WHEN k.open_claim THEN NULL ELSE d.locked_until END,
    next_attempt_at = CASE WHEN k.settles AND k.verdict = 'retry'
      THEN now() + k.delay_ms * interval '1 millisecond' ELSE d.next_attempt_at END,
    delivered_at = CASE WHEN NOT k.settles THEN d.delivered_at
      WHEN k.verdict = 'delivered' THEN now() END,
    updated_at = now()
  FROM lk k
  WHERE d.id = ANY($1::text[]) AND d.id = k.id AND (k.open_claim OR k.settles)),
logged AS (
  INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, outcome, response_body)
  SELECT id, attempt, started_at, duration_ms, status_code, error, verdict, response_body FROM lk
  WHERE logs ORDER BY ord
  ON CONFLICT (delivery_id, attempt, started_at) DO NOTHING
  RETURNING delivery_id),
-- Per endpoint, its last attempt of the batch written to the history, and whether one
-- before it succeeded.
last AS (
  SELECT DISTINCT ON (endpoint_id) endpoint_id, verdict = 'delivered' AS ok,
    bool_or(verdict = 'delivered') OVER (PARTITION BY endpoint_id) AS any_ok
  FROM lk JOIN logged g ON g.delivery_id = lk.id WHERE endpoint_id IS NOT NULL
  ORDER BY endpoint_id, ord DESC),
-- An endpoint's failure record (auto-disable) is written only when it changes: the first
-- failure after a success, the first success after failures. A batch ends as its attempts
-- one after another would: a success clears it, a failure after a success of the batch
-- starts it again.
-- An endpoint row that another transaction holds (another instance's record, an admin
-- replay, the auto-disable sweep) is skipped, never waited for: its record is left to a
-- later batch, and the sweep disables no endpoint with a delivery delivered since its
-- failing_since (db/endpoints.ts disableFailingEndpoints). So no record waits on an
-- endpoint, and claims go on.
locked AS (
  SELECT ep.id FROM webhook_endpoints ep
  WHERE ep.id IN (SELECT endpoint_id FROM last)
  ORDER BY ep.id FOR NO KEY UPDATE SKIP LOCKED)`;
const RECORD_FAILING = `
UPDATE webhook_endpoints ep SET
  failing_since = CASE WHEN l.ok THEN NULL ELSE now() END
FROM last l JOIN locked k ON k.id = l.endpoint_id
WHERE ep.id = l.endpoint_id
  AND (CASE WHEN l.ok THEN ep.failing_since IS NOT NULL
    ELSE ep.failing_since IS NULL OR l.any_ok END)`;
const RECORD_SQL = `WITH ${RECORD_CTES}${RECORD_FAILING}`;

/** A claim's statements, alone and after a batch of records, per limit (made once each). */
const claimTexts = new Map<number, { claim: string; recordClaim: string }>();

/**
 * The claim alone ($1, $2 the lease and the cap) and, for a batch of finished attempts
 * recorded and the next claim made by one statement, one commit, the record-and-claim ($1-$9
 * the attempts as in RECORD_SQL, $10, $11 the lease and the cap). Every part of one statement
 * sees the same snapshot, so the recorded deliveries still look leased to the claim's part:
 * those whose current claim the statement records are left out of its count of busy
 * deliveries per target (their attempts are over; a stale attempt's delivery is still busy
 * under the claim that superseded it), and every delivery of the batch is left out of what
 * it may take (a row is updated once per statement). A worker claims at most its free slots,
 * so a process prepares a few dozen of these at most.
 */
function claimStatements(limit: number): { claim: string; recordClaim: string } {
  if (!Number.isSafeInteger(limit) || limit < 0 || limit > 10_000) {
    throw new RangeError(`claim limit ${limit}`);
  }
  let sql = claimTexts.get(limit);
  if (!sql) {
    sql = {
      claim: `WITH ${claimSql(limit, '$1', '$2')}`,
      recordClaim: `WITH ${RECORD_CTES},
failing AS (${RECORD_FAILING}),${claimSql(limit, '$10', '$11', '$1::text[]', '(SELECT id FROM lk WHERE open_claim)')}`,
    };
    claimTexts.set(limit, sql);
  }
  return sql;
}

export interface DeliveryAttempt {
  deliveryId: string;
  verdict: 'delivered' | 'dead' | 'retry';
  statusCode: number | null;
  error: string | null;
  /** The receiver's answer, first 1 KiB (delivery/sender.ts); null when none came. */
  responseBody: string | null;
  /** Delay before the next attempt when the verdict is retry. */
  delayMs: number;
  attempt: number;
  startedAt: Date;
  durationMs: number;
}

/** RECORD_SQL's $1-$9: one array per column, the attempts in order. */
function attemptColumns(attempts: readonly DeliveryAttempt[]): unknown[] {
  const n = attempts.length;
  const ids = new Array<string>(n);
  const verdicts = new Array<string>(n);
  const codes = new Array<number | null>(n);
  const errors = new Array<string | null>(n);
  const delays = new Array<number>(n);
  const numbers = new Array<number>(n);
  const starts = new Array<Date>(n);
  const durations = new Array<number>(n);
  const bodies = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const a = attempts[i] as DeliveryAttempt;
    ids[i] = a.deliveryId;
    verdicts[i] = a.verdict;
    codes[i] = a.statusCode;
    errors[i] = a.error;
    delays[i] = a.delayMs;
    numbers[i] = a.attempt;
    starts[i] = a.startedAt;
    durations[i] = a.durationMs;
    bodies[i] = a.responseBody;
  }
  return [ids, verdicts, codes, errors, delays, numbers, starts, durations, bodies];
}

/** Records attempts in one statement (db/deliveries.ts RECORD_SQL); each delivery at most once. */
export async function recordDeliveryAttempts(
  db: Queryable,
  attempts: readonly DeliveryAttempt[],
): Promise<void> {
  await db.query({
    name: 'deliveries_record_attempts',
    text: RECORD_SQL,
    values: attemptColumns(attempts),
  });
}

export interface DeliveryListRow {
  id: string;
  event_id: string;
  event_type: string;
  app_id: string;
  endpoint_id: string | null;
  payment_id: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_response_body: string | null;
  next_attempt_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** Deliveries newest first, optionally of one status. */
export async function listDeliveryRows(
  db: Queryable,
  status: string | null,
  limit: number,
): Promise<DeliveryListRow[]> {
  const res = await db.query<DeliveryListRow>(
    `SELECT d.id, d.event_id, e.event_type, d.app_id, d.endpoint_id, e.payment_id, d.status, d.attempts,
       d.last_status_code, d.last_error, d.last_response_body, d.next_attempt_at, d.created_at, d.updated_at
     FROM deliveries d JOIN outbound_events e ON e.id = d.event_id
     WHERE ($1::text IS NULL OR d.status = $1)
     ORDER BY d.updated_at DESC, d.id DESC LIMIT $2`,
    [status, limit],
  );
  return res.rows;
}
