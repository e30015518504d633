import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { DISTRIBUTION_COLUMN, LOCAL_TABLES, REFERENCE_TABLES } from '../../src/db/distribute.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

/**
 * What keeps sharding by company possible (DESIGN.md "Tenancy"; docs/scaling.md): every tenant table carries
 * company_id, and its primary key and every unique constraint or index start with it, so each can be enforced on one
 * shard. The tables without company_id, or with keys that do not start with it, are exactly the reference and local
 * tables named in src/db/distribute.ts. Run on PostgreSQL, PGlite and Citus.
 */

const NAMED = new Set<string>([...REFERENCE_TABLES, ...LOCAL_TABLES]);

/** Every breach of the invariant in one schema's tables, as readable lines; empty when it holds. */
async function shardingViolations(db: Database, schema: string): Promise<string[]> {
  const tables = await db.query<{ name: string; has_company: boolean }>(sql`
    SELECT c.relname AS name,
           EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = ${DISTRIBUTION_COLUMN} AND NOT a.attisdropped) AS has_company
      FROM pg_class c
     WHERE c.relnamespace = ${schema}::regnamespace AND c.relkind IN ('r', 'p')
     ORDER BY 1`);
  const keys = await db.query<{ name: string; index: string; kind: string; first: string | null }>(sql`
    SELECT c.relname AS name, ic.relname AS index, CASE WHEN i.indisprimary THEN 'primary key' ELSE 'unique key' END AS kind,
           a.attname AS first
      FROM pg_index i
      JOIN pg_class c ON c.oid = i.indrelid
      JOIN pg_class ic ON ic.oid = i.indexrelid
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
     WHERE c.relnamespace = ${schema}::regnamespace AND (i.indisunique OR i.indisprimary)
     ORDER BY 1, 2`);
  const out: string[] = [];
  for (const t of tables) {
    if (NAMED.has(t.name)) continue;
    if (!t.has_company) out.push(`${t.name}: no ${DISTRIBUTION_COLUMN} column`);
  }
  for (const k of keys) {
    if (NAMED.has(k.name)) continue;
    // an expression index has no column first (attnum 0): it cannot start with company_id either
    if (k.first !== DISTRIBUTION_COLUMN) out.push(`${k.name}: ${k.kind} ${k.index} starts with ${k.first ?? 'an expression'}`);
  }
  for (const t of tables) if (!NAMED.has(t.name) && !keys.some((k) => k.name === t.name && k.kind === 'primary key')) out.push(`${t.name}: no primary key`);
  return out;
}

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.db.query(sql`DROP SCHEMA IF EXISTS sharding_probe CASCADE`).catch(() => {});
  await t.drop();
});

describe('every tenant table can be sharded by company_id', () => {
  it('holds for the migrated schema: keys start with company_id; the tables without it are the named reference and local ones', async () => {
    expect(await shardingViolations(t.db, 'public')).toEqual([]);
    const withoutCompany = await t.db.query<{ name: string }>(sql`
      SELECT c.relname AS name FROM pg_class c
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
         AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = ${DISTRIBUTION_COLUMN} AND NOT a.attisdropped)
       ORDER BY 1`);
    // every table without company_id is named, and is a reference or local table on purpose (api_keys has the column
    // but is a reference table: its key_hash is unique across companies)
    for (const { name } of withoutCompany) expect(NAMED.has(name), name).toBe(true);
    expect(withoutCompany.map((r) => r.name).sort()).toEqual(['companies', 'schema_migrations', 'service_secrets']);
  });

  it('fails on each kind of breach: a table without company_id, a primary key or a unique key not starting with it', async () => {
    await t.db.query(sql`CREATE SCHEMA sharding_probe`);
    for (const ddl of [
      'CREATE TABLE sharding_probe.good (company_id text NOT NULL, id text NOT NULL, sku text NOT NULL, PRIMARY KEY (company_id, id), UNIQUE (company_id, sku))',
      'CREATE TABLE sharding_probe.no_company (id text PRIMARY KEY)',
      'CREATE TABLE sharding_probe.id_first (company_id text NOT NULL, id text NOT NULL, PRIMARY KEY (id, company_id))',
      'CREATE TABLE sharding_probe.global_sku (company_id text NOT NULL, id text NOT NULL, sku text NOT NULL, PRIMARY KEY (company_id, id))',
      'CREATE UNIQUE INDEX global_sku_sku ON sharding_probe.global_sku (sku, company_id)',
      'CREATE TABLE sharding_probe.lower_name (company_id text NOT NULL, id text NOT NULL, name text NOT NULL, PRIMARY KEY (company_id, id))',
      'CREATE UNIQUE INDEX lower_name_name ON sharding_probe.lower_name (lower(name))',
      'CREATE TABLE sharding_probe.keyless (company_id text NOT NULL, id text NOT NULL)',
    ])
      await t.db.query(sql.raw(ddl));
    expect(await shardingViolations(t.db, 'sharding_probe')).toEqual([
      'no_company: no company_id column',
      'global_sku: unique key global_sku_sku starts with sku',
      'id_first: primary key id_first_pkey starts with id',
      'lower_name: unique key lower_name_name starts with an expression',
      'no_company: primary key no_company_pkey starts with id',
      'keyless: no primary key',
    ]);
  });
});
