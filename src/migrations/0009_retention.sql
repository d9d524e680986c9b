-- Retention of delivery attempts (docs/operations.md#retention) deletes the oldest first.
-- inbound_events already has an index on received_at, and idempotency_keys on created_at.
CREATE INDEX delivery_attempts_started_idx ON delivery_attempts (started_at);
