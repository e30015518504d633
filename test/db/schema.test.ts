import { is, SQL, sql } from 'drizzle-orm';
import { getTableConfig, PgDialect, PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema/index.js';
import { createTestDatabase, onCitus, type TestDatabase } from '../helpers/db.js';
import { functionStatements, readFunctions } from '../../src/db/functions.js';
import { migrate } from '../../src/db/migrate.js';

/**
 * The tables declared in src/db/schema/ and the database the migrations build must agree: the same tables,
 * and per table the same columns (type, nullability, whether a default exists), primary key, unique
 * constraints, foreign keys and indexes (name, method, unique, columns with order and operator class, and the
 * predicate of a partial index). CHECK constraints, triggers and functions live only in the SQL (the
 * declarations type rows; they do not create the database): text columns limited by a CHECK are declared with
 * `enum` for their types, which this test cannot see.
 */

/** What the declarations cannot say, each with the reason; empty today. */
const NOT_DECLARED: Record<string, string> = {};

interface TableShape {
  columns: Record<string, { type: string; notNull: boolean; hasDefault: boolean }>;
  primaryKey: string;
  unique: string[];
  foreignKeys: string[];
  indexes: string[];
}

/** One spelling for both sides: `numeric(12,2)`, `timestamptz`, `text`, ... */
function normaliseType(type: string): string {
  return type
    .toLowerCase()
    .replace(/\s*,\s*/g, ',')
    .replace(/^timestamp(\(\d\))? with time zone$/, 'timestamptz$1')
    .replace(/^timestamp(\(\d\))? without time zone$/, 'timestamp$1');
}

/** `(status = 'open'::text)` and `status = 'open'` alike. */
function normalisePredicate(pred: string | null | undefined): string {
  if (!pred) return '';
  return pred
    .toLowerCase()
    .replace(/::text/g, '')
    .replace(/["()]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const dialect = new PgDialect();
const colNames = (cols: PgColumn[]) => cols.map((c) => c.name).join(',');

function declaredShape(table: PgTable): TableShape {
  const cfg = getTableConfig(table);
  const columns: TableShape['columns'] = {};
  for (const c of cfg.columns) columns[c.name] = { type: normaliseType(c.getSQLType()), notNull: c.notNull, hasDefault: c.hasDefault };
  const pkColumns = cfg.primaryKeys[0]?.columns ?? cfg.columns.filter((c) => c.primary);
  const unique = [...cfg.uniqueConstraints.map((u) => colNames(u.columns)), ...cfg.columns.filter((c) => c.isUnique).map((c) => c.name)];
  const foreignKeys = cfg.foreignKeys.map((fk) => {
    const r = fk.reference();
    return `(${colNames(r.columns)}) -> ${getTableConfig(r.foreignTable).name}(${colNames(r.foreignColumns)})`;
  });
  const indexes = cfg.indexes.map((ix) => {
    const c = ix.config;
    const columns = c.columns.map((col) => {
      if (is(col, SQL)) return dialect.sqlToQuery(col).sql;
      const ec = col as { name?: string; indexConfig?: { order?: string; opClass?: string } };
      return [ec.name, ec.indexConfig?.order === 'desc' ? 'desc' : '', ec.indexConfig?.opClass ?? ''].filter(Boolean).join(' ');
    });
    const pred = normalisePredicate(c.where ? dialect.sqlToQuery(c.where).sql : '');
    return `${c.name}: ${c.unique ? 'unique ' : ''}${c.method ?? 'btree'} (${columns.join(', ')})${pred ? ` where ${pred}` : ''}`;
  });
  return { columns, primaryKey: colNames(pkColumns), unique: unique.sort(), foreignKeys: foreignKeys.sort(), indexes: indexes.sort() };
}

async function migratedShape(db: TestDatabase['db'], table: string): Promise<TableShape> {
  const cols = await db.query<{ name: string; type: string; not_null: boolean; has_default: boolean }>(sql`
    SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, a.atthasdef AS has_default
    FROM pg_attribute a
    WHERE a.attrelid = ${`public.${table}`}::regclass AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY a.attnum`);
  const constraints = await db.query<{ kind: string; columns: string; ref_table: string | null; ref_columns: string | null }>(sql`
    SELECT c.contype::text AS kind,
           (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
              JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
           c.confrelid::regclass::text AS ref_table,
           (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
              JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS ref_columns
    FROM pg_constraint c
    WHERE c.conrelid = ${`public.${table}`}::regclass AND c.contype IN ('p', 'u', 'f')`);
  const indexes = await db.query<{ name: string; is_unique: boolean; method: string; columns: string; predicate: string | null }>(sql`
    SELECT i.relname AS name, ix.indisunique AS is_unique, am.amname AS method,
           (SELECT string_agg(pg_get_indexdef(ix.indexrelid, k, true)
                     || CASE WHEN ix.indoption[k - 1] & 1 = 1 THEN ' desc' ELSE '' END
                     || coalesce((SELECT ' ' || opc.opcname FROM pg_opclass opc WHERE opc.oid = ix.indclass[k - 1] AND NOT opc.opcdefault), ''),
                     ', ' ORDER BY k)
              FROM generate_series(1, ix.indnatts) k) AS columns,
           pg_get_expr(ix.indpred, ix.indrelid) AS predicate
    FROM pg_index ix
    JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_am am ON am.oid = i.relam
    WHERE ix.indrelid = ${`public.${table}`}::regclass
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid AND c.conrelid = ix.indrelid)`);

  const columns: TableShape['columns'] = {};
  for (const c of cols) columns[c.name] = { type: normaliseType(c.type), notNull: c.not_null, hasDefault: c.has_default };
  return {
    columns,
    primaryKey: constraints.find((c) => c.kind === 'p')?.columns ?? '',
    unique: constraints
      .filter((c) => c.kind === 'u')
      .map((c) => c.columns)
      .sort(),
    foreignKeys: constraints
      .filter((c) => c.kind === 'f')
      .map((c) => `(${c.columns}) -> ${c.ref_table}(${c.ref_columns})`)
      .sort(),
    indexes: indexes
      .map((ix) => {
        const pred = normalisePredicate(ix.predicate);
        return `${ix.name}: ${ix.is_unique ? 'unique ' : ''}${ix.method} (${ix.columns.replace(/"/g, '')})${pred ? ` where ${pred}` : ''}`;
      })
      .sort(),
  };
}

const declared = new Map((Object.values(schema) as unknown[]).filter((v): v is PgTable => is(v, PgTable)).map((t) => [getTableConfig(t).name, t]));

describe('the schema declared in TypeScript matches the migrated database', () => {
  let t: TestDatabase;
  let tables: string[];

  beforeAll(async () => {
    t = await createTestDatabase();
    const rows = await t.db.query<{ name: string }>(sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
    tables = rows.map((r) => r.name);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('declares every table of the database and no other', () => {
    expect([...declared.keys()].sort()).toEqual(tables.filter((name) => !(name in NOT_DECLARED)));
  });

  it('declares each table as migrated: columns, types, nullability, defaults, keys and indexes', async () => {
    // All tables in one comparison, so one run shows every difference.
    const inTs: Record<string, TableShape> = {};
    const inDb: Record<string, TableShape> = {};
    for (const name of tables) {
      const table = declared.get(name);
      if (!table) continue; // reported by the test above
      inTs[name] = declaredShape(table);
      inDb[name] = await migratedShape(t.db, name);
    }
    expect(inTs).toEqual(inDb);
  });

  const planModes = async () => {
    const rows = await t.db.query<{ fn: string; config: string[] | null }>(sql`
      SELECT p.proname AS fn, p.proconfig AS config
      FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND l.lanname = 'plpgsql' ORDER BY 1`);
    return Object.fromEntries(rows.map((r) => [r.fn, (r.config ?? []).find((c) => c.startsWith('plan_cache_mode='))?.slice(16) ?? null]));
  };

  it('plans PL/pgSQL statements as the database needs: with the values of each call on Citus, once per connection on one PostgreSQL', async () => {
    const modes = await planModes();
    expect(Object.keys(modes)).toEqual(expect.arrayContaining(['place_order', 'reserve_stock', 'upsert_customer', 'refresh_in_stock']));
    if (onCitus()) {
      // every statement a router statement on the one shard of the call's company (migration 0014)
      expect(Object.entries(modes).filter(([, mode]) => mode !== 'force_custom_plan')).toEqual([]);
    } else {
      // PostgreSQL's own choice, but reserve_stock: its statements are probes by key, one generic plan per connection
      const expected = Object.fromEntries(Object.keys(modes).map((fn) => [fn, fn === 'reserve_stock' ? 'force_generic_plan' : null]));
      expect(modes).toEqual(expected);
    }
  });

  it('sets the modes again at every migrate: a database that gains Citus gets force_custom_plan, and back', async () => {
    if (onCitus()) return; // the Citus side is the test above
    await t.db.tx(async (tx) => {
      for (const statement of functionStatements(readFunctions(), true)) await tx.query(sql.raw(statement));
    });
    expect(new Set(Object.values(await planModes()))).toEqual(new Set(['force_custom_plan']));
    await migrate(t.db); // no migration to apply: the function files and their modes alone
    expect((await planModes()).reserve_stock).toBe('force_generic_plan');
    expect((await planModes()).place_order).toBeNull();
  });
});
