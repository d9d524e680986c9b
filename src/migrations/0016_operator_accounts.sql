-- Operators are people (issue 26): accounts with roles, personal API tokens, dashboard
-- sessions from OpenID Connect sign-in, and an audit log that names who acted.

CREATE TABLE operators (
  id          text PRIMARY KEY,
  email       text NOT NULL,
  name        text NOT NULL,
  role        text NOT NULL CHECK (role IN ('viewer', 'support', 'finance', 'admin')),
  disabled    boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
-- The identity provider's verified email finds the operator whatever its case.
CREATE UNIQUE INDEX operators_email_idx ON operators (lower(email));

-- Only the SHA-256 of a token is kept: the secret is shown once, at creation. The tokens are
-- 256 random bits, so a fast hash is enough (no guessing to slow down).
CREATE TABLE operator_tokens (
  id            text PRIMARY KEY,
  operator_id   text NOT NULL REFERENCES operators (id),
  name          text NOT NULL,
  token_hash    bytea NOT NULL UNIQUE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz,
  last_used_at  timestamptz
);
CREATE INDEX operator_tokens_operator_idx ON operator_tokens (operator_id, created_at DESC);

-- Dashboard sessions, by the SHA-256 of the cookie's value: a copy of this table gives no
-- usable cookie. Ending a session is setting ended_at; every request reads the row, so it
-- ends on every instance at once.
CREATE TABLE operator_sessions (
  id_hash        bytea PRIMARY KEY,
  operator_id    text NOT NULL REFERENCES operators (id),
  csrf_token     text NOT NULL,
  created_at     timestamptz NOT NULL,
  last_seen_at   timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL,
  ended_at       timestamptz
);
CREATE INDEX operator_sessions_operator_idx ON operator_sessions (operator_id);

-- An OpenID Connect sign-in between the redirect to the identity provider and its return:
-- the PKCE verifier and nonce stay here, never in the browser.
CREATE TABLE oidc_sign_ins (
  state          text PRIMARY KEY,
  code_verifier  text NOT NULL,
  nonce          text NOT NULL,
  created_at     timestamptz NOT NULL
);

-- Settings every instance must agree on at once. One row per key.
CREATE TABLE gateway_settings (
  key    text PRIMARY KEY,
  value  jsonb NOT NULL
);
INSERT INTO gateway_settings (key, value) VALUES ('admin_token_enabled', 'true');

-- Who acted. Every entry before this migration was made with ADMIN_TOKEN, the only credential
-- there was: 'root'. The constant default fills them without a rewrite (and without touching
-- the append-only trigger); it is dropped after, so every new entry names its actor.
ALTER TABLE audit_log ADD COLUMN actor text NOT NULL DEFAULT 'root';
ALTER TABLE audit_log ALTER COLUMN actor DROP DEFAULT;
ALTER TABLE audit_log ADD COLUMN actor_email text;
ALTER TABLE audit_log ADD COLUMN actor_token_name text;
CREATE INDEX audit_log_actor_idx ON audit_log (actor, id DESC);
