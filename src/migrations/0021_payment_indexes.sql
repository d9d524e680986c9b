-- The payments table's indexes (issue 29, docs/performance.md#payment-indexes).
--
-- The admin search's amount_min/amount_max filters: without an index a filter that matches
-- few payments reads the whole table (80 ms at 300,000 payments, growing with the table).
-- With it PostgreSQL reads only the matching amounts and sorts those; a wide range that
-- matches many payments is still served newest first by payments_created_id_idx.
-- amount_minor never changes after the insert, so this index costs no HOT update.
CREATE INDEX payments_amount_idx ON payments (amount_minor);
