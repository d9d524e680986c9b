-- Bounds on what unauthenticated callers can store through /webhooks/<provider>
-- (docs/operations.md, "Inbound webhook limits"). A rejected body is archived truncated;
-- its full size and SHA-256 stay on record. Rows archived before this migration keep their
-- whole body and leave these NULL (readers fall back to the stored bytes).
ALTER TABLE inbound_events ADD COLUMN body_size integer;
ALTER TABLE inbound_events ADD COLUMN body_sha256 text;
ALTER TABLE inbound_events ADD COLUMN body_truncated boolean NOT NULL DEFAULT false;

-- The retention job deletes old bad-signature rows oldest first.
CREATE INDEX inbound_events_rejected_idx ON inbound_events (received_at)
  WHERE outcome = 'bad_signature';
