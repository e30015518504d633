-- The audit trail is append-only (migration 0036): a row is never changed, and deleted only by the retention rule past
-- a company's audit_retention_days, whose transaction says so first with SET LOCAL commerce.audit_purge = 'on'.
-- Called by the row trigger audit_log_append_only on UPDATE and DELETE (not created on Citus: docs/decisions.md).
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND coalesce(current_setting('commerce.audit_purge', true), '') = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege', HINT = 'only the retention purge deletes entries, with SET LOCAL commerce.audit_purge = ''on''';
END
$$;
