-- Reconciliation (docs/api.md#reconciliation): per provider, mode and UTC day the gateway's
-- ledger is compared with the provider's own record of the money it moved.

-- A reconciliation item is an exception of kind 'reconciliation' until a later run finds it
-- matched or an operator resolves it. A charge the gateway never heard of names no payment
-- and no app: only this kind may leave them empty. reconciliation_key names the item
-- (provider, mode, day, item kind and key), so a later run finding it again records nothing.
ALTER TABLE payment_exceptions ALTER COLUMN payment_id DROP NOT NULL,
  ALTER COLUMN app_id DROP NOT NULL,
  ADD COLUMN reconciliation_key text;
ALTER TABLE payment_exceptions DROP CONSTRAINT payment_exceptions_kind_check;
ALTER TABLE payment_exceptions ADD CONSTRAINT payment_exceptions_kind_check
  CHECK (kind IN ('paid_after_cancel', 'paid_after_failure', 'unrequested_refund',
                  'amount_mismatch', 'reconciliation'));
ALTER TABLE payment_exceptions ADD CONSTRAINT payment_exceptions_reconciliation_shape
  CHECK ((kind = 'reconciliation') = (reconciliation_key IS NOT NULL)
     AND (kind = 'reconciliation' OR (payment_id IS NOT NULL AND app_id IS NOT NULL)));
-- The payment's money is recorded once per (payment, kind, provider reference) as before;
-- reconciliation items are one per item key instead (two items of a day may name the same
-- payment and reference: its charge and its refund at card_psp).
ALTER TABLE payment_exceptions DROP CONSTRAINT payment_exceptions_payment_id_kind_provider_ref_key;
CREATE UNIQUE INDEX payment_exceptions_money_once
  ON payment_exceptions (payment_id, kind, provider_ref) WHERE kind <> 'reconciliation';
CREATE UNIQUE INDEX payment_exceptions_reconciliation_key
  ON payment_exceptions (reconciliation_key) WHERE reconciliation_key IS NOT NULL;
-- Open items of one day (keys start with provider|mode|day|), found again or cleared by each
-- run of that day.
CREATE INDEX payment_exceptions_reconciliation_open
  ON payment_exceptions (reconciliation_key text_pattern_ops)
  WHERE reconciliation_key IS NOT NULL AND resolution = 'manual';

-- A settlement report file an operator uploaded (idr_psp), stored once per content: the same
-- file uploaded twice finds its first upload. Its rows are kept parsed, ready for a run.
CREATE TABLE reconciliation_imports (
  id           text PRIMARY KEY,
  provider     text NOT NULL,
  mode         text NOT NULL CHECK (mode IN ('test', 'sandbox', 'live')),
  day          date NOT NULL,
  sha256       bytea NOT NULL,
  filename     text NOT NULL,
  row_count    integer NOT NULL,
  uploaded_at  timestamptz NOT NULL DEFAULT now(),
  -- Who uploaded it, as the audit log records a request (its entry has the same request id).
  request_id   text NOT NULL,
  source_ip    text NOT NULL,
  UNIQUE (provider, mode, sha256)
);
CREATE INDEX reconciliation_imports_day_idx
  ON reconciliation_imports (provider, mode, day, uploaded_at DESC, id DESC);

CREATE TABLE reconciliation_import_rows (
  import_id       text NOT NULL REFERENCES reconciliation_imports (id),
  line            integer NOT NULL,
  type            text NOT NULL CHECK (type IN ('charge', 'refund')),
  provider_ref    text NOT NULL,
  payment_ref     text NOT NULL,
  status          text NOT NULL CHECK (status IN ('completed', 'pending', 'failed', 'reversed')),
  currency        text NOT NULL,
  amount_minor    bigint NOT NULL,
  fee_minor       bigint,
  occurred_at     timestamptz NOT NULL,
  PRIMARY KEY (import_id, line)
);

-- One run: the figures of the day as found, and its items. The newest run of a day is the
-- day's answer.
CREATE TABLE reconciliation_runs (
  id                  text PRIMARY KEY,
  provider            text NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('test', 'sandbox', 'live')),
  day                 date NOT NULL,
  status              text NOT NULL CHECK (status IN ('matched', 'mismatched')),
  matched_count       integer NOT NULL,
  gateway_net_minor   numeric NOT NULL,
  provider_net_minor  numeric NOT NULL,
  fees_minor          numeric NOT NULL,
  import_id           text REFERENCES reconciliation_imports (id),
  trigger             text NOT NULL CHECK (trigger IN ('operator', 'daily')),
  started_at          timestamptz NOT NULL,
  finished_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reconciliation_runs_day_idx
  ON reconciliation_runs (provider, mode, day, finished_at DESC, id DESC);

CREATE TABLE reconciliation_items (
  run_id                 text NOT NULL REFERENCES reconciliation_runs (id),
  position               integer NOT NULL,
  kind                   text NOT NULL CHECK (kind IN ('missing_in_gateway', 'missing_at_provider',
                                                       'amount_mismatch', 'status_mismatch')),
  movement               text NOT NULL CHECK (movement IN ('charge', 'refund')),
  provider_ref           text NOT NULL,
  payment_id             text,
  currency               text NOT NULL,
  gateway_amount_minor   bigint,
  provider_amount_minor  bigint,
  provider_status        text,
  exception_id           text REFERENCES payment_exceptions (id),
  PRIMARY KEY (run_id, position)
);

-- The daily job's claim of one (provider, mode, day): one instance runs it; a claim left by a
-- process that died is taken over after claim_expires_at.
CREATE TABLE reconciliation_daily (
  provider          text NOT NULL,
  mode              text NOT NULL,
  day               date NOT NULL,
  claim_expires_at  timestamptz NOT NULL,
  done_at           timestamptz,
  PRIMARY KEY (provider, mode, day)
);
