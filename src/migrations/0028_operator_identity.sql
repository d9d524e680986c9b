-- An operator is bound to the identity provider's account (issuer and subject, the only
-- stable identifiers OpenID Connect gives) at the first sign-in. A later sign-in with the same
-- verified email from another account (an address given to someone else, a second account
-- made at the provider) is refused. Disabling the operator releases the binding.
ALTER TABLE operators ADD COLUMN oidc_issuer text, ADD COLUMN oidc_subject text;
-- One account is one operator: an account whose email the identity provider changed to
-- another operator's cannot bind to that one too.
CREATE UNIQUE INDEX operators_oidc_account_idx ON operators (oidc_issuer, oidc_subject)
  WHERE oidc_subject IS NOT NULL;
