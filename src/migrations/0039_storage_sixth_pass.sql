-- Storage per payment, sixth pass (issue 29; docs/performance.md#storage-per-payment-sixth-pass).
--
-- Five of the admin payment list's indexes by creation time without the payment id in their
-- key. Each ended in (created_at DESC, id DESC) so that a page was read in the list's exact
-- order, ties of created_at broken by id; the 32-character id took 40 bytes of every entry (56
-- to 96 bytes with it, 16 to 56 without). Two payments rarely share a creation time to the
-- microsecond, so PostgreSQL now reads the index in created_at order and sorts only the rows
-- of one created_at by id (Incremental Sort); the cursor's row comparison (created_at, id) <
-- (..) bounds the scan by its created_at (created_at <= ..) and drops the cursor's own ties on
-- the rows read. Same rows, same order, same filters; each index serves what it served before
-- (docs/performance.md#what-each-index-of-payments-serves).
--
-- payments_unsucceeded_created_id_idx (the status filter's) keeps its id: small at rest (only
-- the payments not succeeded), and without it the planner picked the reconciler's
-- payments_initiated_deadline_idx more often for status=initiated with a created range, a
-- plan that reads every initiated payment (docs/performance.md).
--
-- On a large table build the five first, without blocking writes, with CREATE INDEX
-- CONCURRENTLY IF NOT EXISTS and these definitions; this migration then finds them and only
-- drops the five it replaces (docs/operations.md, "Upgrading a large database to 0039"). A
-- concurrent build that failed leaves its index invalid (never used by a plan): the migration
-- then stops before dropping anything, rather than leave the list without a usable index.
CREATE INDEX IF NOT EXISTS payments_created_idx ON payments (created_at DESC);
CREATE INDEX IF NOT EXISTS payments_mode_created_idx ON payments (mode, created_at DESC);
CREATE INDEX IF NOT EXISTS payments_app_created_idx ON payments (app_id, created_at DESC);
CREATE INDEX IF NOT EXISTS payments_external_user_idx ON payments (external_user_id, created_at DESC);
CREATE INDEX IF NOT EXISTS payments_email_idx ON payments (email, created_at DESC)
  WHERE email IS NOT NULL;

DO $$
DECLARE
  invalid text;
BEGIN
  SELECT string_agg(i.indexrelid::regclass::text, ', ') INTO invalid
  FROM pg_index i
  WHERE i.indexrelid IN (to_regclass('payments_created_idx'), to_regclass('payments_mode_created_idx'),
      to_regclass('payments_app_created_idx'), to_regclass('payments_external_user_idx'),
      to_regclass('payments_email_idx'))
    AND NOT i.indisvalid;
  IF invalid IS NOT NULL THEN
    RAISE EXCEPTION 'index % is invalid (a CREATE INDEX CONCURRENTLY that failed): drop it and build it again (docs/operations.md, "Upgrading a large database to 0039")', invalid;
  END IF;
END $$;

DROP INDEX IF EXISTS payments_created_id_idx;
DROP INDEX IF EXISTS payments_mode_created_id_idx;
DROP INDEX IF EXISTS payments_app_created_id_idx;
DROP INDEX IF EXISTS payments_external_user_created_idx;
DROP INDEX IF EXISTS payments_email_given_created_idx;
