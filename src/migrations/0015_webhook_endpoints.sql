-- Webhook endpoints (docs/api.md#webhook-endpoints): more than one URL per app, each with its
-- own event filter, secret, queue, attempts and dead letters. The app's webhook_url stays the
-- default endpoint (deliveries with endpoint_id null).
CREATE TABLE webhook_endpoints (
  id                   text PRIMARY KEY,
  app_id               text NOT NULL REFERENCES apps (id),
  url                  text NOT NULL,
  -- Event kinds, or {'*'} for every kind.
  event_types          text[] NOT NULL CHECK (cardinality(event_types) > 0),
  description          text NOT NULL DEFAULT '',
  secret_enc           text NOT NULL,
  -- During a rotation window (until rotates_at) deliveries are still signed with the
  -- previous secret in X-PAY-Signature and with the new one in X-PAY-Signature-Next.
  previous_secret_enc  text,
  rotates_at           timestamptz,
  disabled             boolean NOT NULL DEFAULT false,
  disabled_reason      text,
  -- The first failed attempt since the last delivered one; null while it delivers.
  failing_since        timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_app_idx ON webhook_endpoints (app_id, created_at, id);
CREATE INDEX webhook_endpoints_failing_idx ON webhook_endpoints (failing_since)
  WHERE failing_since IS NOT NULL AND NOT disabled;

ALTER TABLE deliveries ADD COLUMN endpoint_id text REFERENCES webhook_endpoints (id);
CREATE INDEX deliveries_endpoint_idx ON deliveries (endpoint_id, created_at)
  WHERE endpoint_id IS NOT NULL;
-- Deliveries in flight per target (the claim caps them so a slow endpoint cannot take every
-- worker slot).
CREATE INDEX deliveries_in_flight_idx ON deliveries ((COALESCE(endpoint_id, app_id)))
  WHERE status = 'pending' AND locked_until IS NOT NULL;

-- Key rotation with a grace window: until keys_rotate_at the previous api key and signing
-- secret still authenticate, and the default endpoint's deliveries carry the previous
-- webhook secret's signature beside the new one's.
ALTER TABLE apps ADD COLUMN previous_api_key text UNIQUE;
ALTER TABLE apps ADD COLUMN previous_signing_secret_enc text;
ALTER TABLE apps ADD COLUMN previous_webhook_secret_enc text;
ALTER TABLE apps ADD COLUMN keys_rotate_at timestamptz;

-- Fan-out: every outbound event gets one delivery per enabled endpoint of its app that
-- subscribes to its kind, in the transaction that writes the event. A trigger covers every
-- writer of outbound_events (the outbox, the fused finalize statement) with one rule.
CREATE FUNCTION outbound_event_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO deliveries (id, event_id, app_id, payment_id, endpoint_id)
  SELECT 'dlv_' || substr(md5(gen_random_uuid()::text), 1, 24), NEW.id, NEW.app_id,
    NEW.payment_id, ep.id
  FROM webhook_endpoints ep
  WHERE ep.app_id = NEW.app_id AND NOT ep.disabled
    AND (NEW.event_type = ANY (ep.event_types) OR '*' = ANY (ep.event_types));
  IF FOUND THEN
    PERFORM pg_notify('paygate_delivery', '');
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER outbound_event_fan_out AFTER INSERT ON outbound_events
  FOR EACH ROW EXECUTE FUNCTION outbound_event_fan_out();
