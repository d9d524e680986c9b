-- The receiver's answer kept with each delivery attempt (docs/api.md#delivery-and-retries):
-- its first 1 KiB as text, so a dead delivery says why the app refused it. The delivery row
-- keeps the last attempt's answer for the dead-deliveries list. Existing rows have none (null).
ALTER TABLE delivery_attempts ADD COLUMN response_body text;
ALTER TABLE deliveries ADD COLUMN last_response_body text;
