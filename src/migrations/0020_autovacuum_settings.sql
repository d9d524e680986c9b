-- Storage settings for the tables the gateway changes all day (docs/operations.md#autovacuum).
--
-- PostgreSQL's defaults vacuum a table once a fifth of it is dead rows. For a table of ten
-- million payments that is two million dead rows before anything is cleaned, and for the
-- delivery queue (each delivery is inserted, claimed, then finished: three versions of every
-- row) the dead rows outnumber the live ones between two vacuums. Smaller scale factors keep
-- each vacuum short and frequent instead of rare and long.
--
-- fillfactor leaves room on each page so that an update which changes no indexed column can
-- put the new version beside the old one (a HOT update: no index entries, no index bloat).
-- Only the tables whose rows are updated in place get it; the append-only ones keep 100.
-- It applies to pages written from now on; existing pages keep their layout.

ALTER TABLE payments SET (
  fillfactor = 85,
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.02
);

ALTER TABLE refunds SET (
  fillfactor = 85,
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.02
);

-- Claimed, then completed with the stored answer: every key is updated once.
ALTER TABLE idempotency_keys SET (
  fillfactor = 80,
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.05
);

-- The queue: small when healthy, so a fixed threshold matters more than the scale factor.
ALTER TABLE deliveries SET (
  fillfactor = 70,
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_analyze_scale_factor = 0.02
);

-- The simulators' objects change state several times each (test mode).
ALTER TABLE sim_objects SET (
  fillfactor = 80,
  autovacuum_vacuum_scale_factor = 0.02
);

-- Materialized report days are deleted and rebuilt as the day's data changes.
ALTER TABLE report_days SET (autovacuum_vacuum_scale_factor = 0.0, autovacuum_vacuum_threshold = 500);
ALTER TABLE report_daily SET (
  fillfactor = 80,
  autovacuum_vacuum_scale_factor = 0.05,
  autovacuum_vacuum_threshold = 1000
);

-- Append-only history: insert-driven vacuums keep the visibility map current, which is what
-- lets the admin lists and reports answer from their indexes alone.
ALTER TABLE ledger_entries SET (autovacuum_vacuum_insert_scale_factor = 0.05);
ALTER TABLE outbound_events SET (autovacuum_vacuum_insert_scale_factor = 0.05);
ALTER TABLE inbound_events SET (autovacuum_vacuum_insert_scale_factor = 0.05);
ALTER TABLE delivery_attempts SET (autovacuum_vacuum_insert_scale_factor = 0.05);
