import { sql } from 'drizzle-orm';
import type { Database, Db } from './client.js';

/** Advisory lock key shared by the migrator and distribution: instances starting together take turns. */
export const SCHEMA_LOCK = 72_611_001;

/**
 * Tables every node needs whole. `api_keys` too: its key_hash is unique across companies and each request looks
 * it up before it knows the company. `ucp_hosts` too: a request's Host names its company. And `ucp_settings`: a
 * public UCP request names its company by slug or Host, and the one statement that finds it joins companies, hosts
 * and settings on any node (one small row per company).
 */
export const REFERENCE_TABLES = ['companies', 'service_secrets', 'api_keys', 'ucp_hosts', 'ucp_settings'] as const;
/** The distribution column of every other table that has it; all of them in one co-location group. */
export const DISTRIBUTION_COLUMN = 'company_id';
/** audit_log's triggers on one PostgreSQL (migration 0036), dropped when the table is distributed. */
const APPEND_ONLY_TRIGGERS = ['audit_log_append_only', 'audit_log_no_truncate'];

/** Never distributed: the migrator's bookkeeping stays on the coordinator. */
export const LOCAL_TABLES = ['schema_migrations'];

export interface DistributeReport {
  /** false: no `citus` extension in this database, nothing was done (one PostgreSQL, PGlite). */
  citus: boolean;
  reference: string[];
  distributed: string[];
  /** Foreign keys dropped and added again around the calls, as `table.constraint`. */
  foreignKeys: string[];
  /** Every statement run, in order (the record docs/scaling.md shows). */
  statements: string[];
}

interface TableState {
  name: string;
  /** citus_tables.citus_table_type: 'distributed', 'reference', 'local' (added to metadata), or null (plain). */
  type: string | null;
  hasCompanyId: boolean;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

export async function hasCitus(db: Db): Promise<boolean> {
  const rows = await db.query(sql`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
  return rows.length > 0;
}

/**
 * Distributes a migrated database when the `citus` extension is present, and does nothing otherwise (one code path
 * for one PostgreSQL, PGlite and Citus). Idempotent: reference tables first, then every table with a company_id
 * column by company_id, co-located with the tenant tables already distributed; a table created by a later migration
 * is distributed by the next call. Foreign keys touching a table being converted are dropped and added again.
 * Citus needs each of these statements in a transaction of its own, so they run one by one on one connection that
 * holds the schema lock (the migrator's key) for the whole run.
 */
export async function distribute(db: Database, log: (msg: string) => void = () => {}): Promise<DistributeReport> {
  const report: DistributeReport = { citus: false, reference: [], distributed: [], foreignKeys: [], statements: [] };
  if (!(await hasCitus(db))) return report;
  report.citus = true;
  await db.session(async (s) => {
    const run = async (text: string) => {
      report.statements.push(text);
      log(text);
      await s.query(sql.raw(text));
    };
    // Tried until free, like the migrator's lock (client.ts waitForLock: a lock-manager wait can be taken for a
    // distributed deadlock on Citus).
    for (let wait = 20; !(await s.query<{ ok: boolean }>(sql.raw(`SELECT pg_try_advisory_lock(${SCHEMA_LOCK}) AS ok`)))[0].ok; wait = Math.min(wait * 2, 500)) {
      await new Promise((r) => setTimeout(r, wait));
    }
    try {
      // Distribution fans out to every shard on purpose: not a request's query, so the test guard is off here.
      await s.query(sql.raw('SET citus.multi_task_query_log_level = off'));
      const tables = await s.query<TableState>(sql`
        SELECT c.relname AS name, ct.citus_table_type AS type,
               EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = ${DISTRIBUTION_COLUMN} AND NOT a.attisdropped) AS "hasCompanyId"
          FROM pg_class c
          LEFT JOIN citus_tables ct ON ct.table_name = c.oid
         WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
         ORDER BY c.relname`);
      const byName = new Map(tables.map((t) => [t.name, t]));
      const toReference = REFERENCE_TABLES.filter((t) => byName.has(t) && byName.get(t)!.type !== 'reference');
      const toDistribute = tables
        .filter((t) => t.hasCompanyId && t.type !== 'distributed')
        .filter((t) => !(REFERENCE_TABLES as readonly string[]).includes(t.name) && !LOCAL_TABLES.includes(t.name))
        .map((t) => t.name);
      if (!toReference.length && !toDistribute.length) return;

      const converting = [...toReference, ...toDistribute];
      const fks = await s.query<{ tbl: string; name: string; def: string }>(sql`
        SELECT conrelid::regclass::text AS tbl, conname AS name, pg_get_constraintdef(oid) AS def
          FROM pg_constraint
         WHERE contype = 'f' AND connamespace = 'public'::regnamespace
           AND (conrelid::regclass::text = ANY(${sql.param(converting)}::text[]) OR confrelid::regclass::text = ANY(${sql.param(converting)}::text[]))
         ORDER BY 1, 2`);
      for (const fk of fks) await run(`ALTER TABLE ${fk.tbl} DROP CONSTRAINT ${ident(fk.name)}`);
      // A database migrated before it had Citus keeps audit_log's append-only triggers (migration 0036), which Citus
      // refuses to distribute: the rule stands in the code alone there (docs/decisions.md).
      if (toDistribute.includes('audit_log')) {
        for (const trigger of APPEND_ONLY_TRIGGERS) await run(`DROP TRIGGER IF EXISTS ${trigger} ON audit_log`);
      }
      for (const t of toReference) {
        await run(`SELECT create_reference_table(${literal(t)})`);
        report.reference.push(t);
      }
      // One co-location group: with a tenant table already distributed (an earlier run), else with the first.
      let anchor = tables.find((t) => t.type === 'distributed' && t.hasCompanyId && !LOCAL_TABLES.includes(t.name))?.name;
      for (const t of toDistribute) {
        await run(`SELECT create_distributed_table(${literal(t)}, ${literal(DISTRIBUTION_COLUMN)}, colocate_with => ${literal(anchor ?? 'default')})`);
        anchor ??= t;
        report.distributed.push(t);
      }
      for (const fk of fks) {
        await run(`ALTER TABLE ${fk.tbl} ADD CONSTRAINT ${ident(fk.name)} ${fk.def}`);
        report.foreignKeys.push(`${fk.tbl}.${fk.name}`);
      }
    } finally {
      await s.query(sql.raw(`SELECT pg_advisory_unlock(${SCHEMA_LOCK})`)).catch(() => {});
    }
  });
  return report;
}
