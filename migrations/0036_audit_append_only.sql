-- The audit trail is append-only in the database too (issue 34): UPDATE of an audit_log row is refused, and DELETE
-- too unless the transaction set commerce.audit_purge = 'on' (the retention rule past audit_retention_days does).

-- History: the live body is src/db/functions/audit_log_append_only.sql (applied by migrate() after the migrations).
CREATE FUNCTION audit_log_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND coalesce(current_setting('commerce.audit_purge', true), '') = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;

-- Not on Citus: a trigger on a distributed table needs citus.enable_unsafe_triggers, and the purge's SET LOCAL would
-- not reach the shards' trigger without citus.propagate_set_commands; there the rule stands in the code alone
-- (docs/decisions.md). db distribute drops the trigger of a database that gains Citus later.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
  END IF;
END
$$;
