-- A settlement file is one (provider, mode, day, bytes): the same bytes declared for another
-- day are that day's own upload (a header-only file of two quiet days, or rows in the hours
-- both days' windows share), not the first day's import answered back.
ALTER TABLE reconciliation_imports
  DROP CONSTRAINT reconciliation_imports_provider_mode_sha256_key,
  ADD CONSTRAINT reconciliation_imports_one_file_a_day UNIQUE (provider, mode, day, sha256);
