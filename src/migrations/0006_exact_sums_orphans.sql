-- Sums of minor units are numeric: a day of IDR payments near the per-payment limit (2^53-1)
-- passes 2^63, which a bigint cannot hold (every report window including that day failed).
ALTER TABLE report_daily
  ALTER COLUMN succeeded_minor TYPE numeric,
  ALTER COLUMN refunded_minor TYPE numeric;

-- A payment whose creating process died between its insert and the provider's answer has no
-- provider_ref and, before this release, no deadline: the reconciler never looked at it.
-- New payments get a deadline at insert (src/services/payments.ts); the ones already
-- stranded get one now, a few minutes after their creation so that nothing still in flight
-- on an instance of the previous release is asked about.
UPDATE payments SET provider_deadline = created_at + interval '5 minutes'
  WHERE status = 'initiated' AND provider_ref IS NULL AND provider_deadline IS NULL;
