import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteDatabase, type Database } from '../../src/db/client.js';
import { distribute, REFERENCE_TABLES } from '../../src/db/distribute.js';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { createTestDatabase, onCitus, type TestDatabase } from '../helpers/db.js';

const NOT_CITUS = 'not on Citus: TEST_DATABASE_URL is not a Citus coordinator (the Citus stage of .ci/run runs these)';

describe('distribute() without the citus extension', () => {
  it('is a no-op: nothing distributed, no statement run, tables untouched', { timeout: 120_000 }, async () => {
    // On the Citus stage every test database has the extension: PGlite stands for one PostgreSQL there.
    const db = onCitus() ? await createPgliteDatabase(undefined) : (await createTestDatabase()).db;
    try {
      if (db.kind === 'pglite') await migrate(db);
      const before = await db.query(sql`SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`);
      expect(await distribute(db)).toEqual({ citus: false, reference: [], distributed: [], foreignKeys: [], statements: [] });
      expect(await db.query(sql`SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`)).toEqual(before);
    } finally {
      await db.close();
    }
  });
});

describe('on Citus', () => {
  let t: TestDatabase | undefined;
  let db: Database;
  beforeAll(async () => {
    if (!onCitus()) return;
    t = await createTestDatabase();
    db = t.db;
  });
  afterAll(async () => {
    await t?.drop();
  });

  const tenantTables = async () =>
    (
      await db.query<{ name: string }>(sql`
        SELECT c.relname AS name FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'company_id' AND NOT a.attisdropped
         WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' ORDER BY 1`)
    )
      .map((r) => r.name)
      .filter((n) => !(REFERENCE_TABLES as readonly string[]).includes(n));

  it('distributes as designed: reference tables, every tenant table by company_id in one co-location group, schema_migrations local', async (ctx) => {
    if (!onCitus()) return ctx.skip(NOT_CITUS);
    const rows = await db.query<{ name: string; method: string; repmodel: string; column: string | null; colocation: number }>(sql`
      SELECT logicalrelid::regclass::text AS name, partmethod AS method, repmodel,
             column_to_column_name(logicalrelid, partkey) AS column, colocationid AS colocation
        FROM pg_dist_partition ORDER BY 1`);
    const by = new Map(rows.map((r) => [r.name, r]));
    for (const ref of REFERENCE_TABLES) expect(by.get(ref), ref).toMatchObject({ method: 'n', repmodel: 't', column: null });
    const tenants = await tenantTables();
    expect(tenants.length).toBeGreaterThanOrEqual(19);
    for (const name of tenants) expect(by.get(name), name).toMatchObject({ method: 'h', column: 'company_id' });
    expect(new Set(tenants.map((n) => by.get(n)!.colocation)).size).toBe(1);
    expect(by.has('schema_migrations')).toBe(false);
    expect(rows.length).toBe(tenants.length + REFERENCE_TABLES.length);
    // Foreign keys kept: e.g. an order line still points at its order and its variant, an order at its company.
    const fks = await db.query<{ name: string }>(
      sql`SELECT conrelid::regclass::text || '->' || confrelid::regclass::text AS name FROM pg_constraint WHERE contype = 'f'`,
    );
    expect(fks.map((f) => f.name)).toEqual(
      expect.arrayContaining(['order_lines->orders', 'order_lines->variants', 'orders->companies', 'api_keys->companies']),
    );
  });

  it('runs a query filtered by company_id as a router query; an unfiltered one fails under the guard', async (ctx) => {
    if (!onCitus()) return ctx.skip(NOT_CITUS);
    await db.query(sql`INSERT INTO companies (id, slug, name) VALUES ('co_guard_a', 'guard-a', 'A'), ('co_guard_b', 'guard-b', 'B')`);
    await db.query(sql`INSERT INTO customers (company_id, id, name, phone_e164) VALUES ('co_guard_a', 'cus_1', 'One', '+919876543210')`);
    expect(await db.query(sql`SELECT count(*)::int AS n FROM customers WHERE company_id = ${'co_guard_a'}`)).toEqual([{ n: 1 }]);
    const [plan] = await db.query<{ 'QUERY PLAN': string }>(sql`EXPLAIN SELECT count(*) FROM customers WHERE company_id = ${'co_guard_a'}`);
    expect(plan['QUERY PLAN']).toMatch(/Custom Scan \(Citus Adaptive\)/);
    expect(
      (await db.query<{ 'QUERY PLAN': string }>(sql`EXPLAIN SELECT count(*) FROM customers WHERE company_id = ${'co_guard_a'}`))
        .map((r) => r['QUERY PLAN'])
        .join('\n'),
    ).toMatch(/Task Count: 1\b/);
    await expect(db.query(sql`SELECT count(*) FROM customers`)).rejects.toThrow(/multi-task query about to be executed/);
    await expect(db.query(sql`UPDATE customers SET name = name`)).rejects.toThrow(/multi-task query about to be executed/);
    // A named cross-company read switches the guard off for its own transaction (what src/db/cross-company.ts does).
    const n = await db.tx(async (tx) => {
      await tx.query(sql`SET LOCAL citus.multi_task_query_log_level = off`);
      return tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM customers`);
    });
    expect(n).toEqual([{ n: 1 }]);
  });

  it('applies a later migration to the distributed database: columns and indexes propagate, a new table is distributed', { timeout: 120_000 }, async (ctx) => {
    if (!onCitus()) return ctx.skip(NOT_CITUS);
    const dir = mkdtempSync(join(tmpdir(), 'citus-mig-'));
    try {
      for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_/.test(f))) copyFileSync(join(MIGRATIONS_DIR, f), join(dir, f));
      writeFileSync(
        join(dir, '9001_later.sql'),
        `ALTER TABLE orders ADD COLUMN gift_note text;
         CREATE INDEX orders_gift_note ON orders (company_id, gift_note);
         -- A new tenant table without foreign keys to tenant tables: the migrator's distribute() step picks it up.
         CREATE TABLE wishlists (company_id text NOT NULL REFERENCES companies (id), id text NOT NULL, customer_id text NOT NULL, PRIMARY KEY (company_id, id));
         -- One with a foreign key to a distributed table must be distributed before that key is added (docs/scaling.md).
         CREATE TABLE order_notes (company_id text NOT NULL REFERENCES companies (id), id text NOT NULL, order_id text NOT NULL, PRIMARY KEY (company_id, id));
         DO $$ BEGIN
           IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
             PERFORM create_distributed_table('order_notes', 'company_id', colocate_with => 'orders');
           END IF;
         END $$;
         ALTER TABLE order_notes ADD FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id);`,
      );
      expect(await migrate(db, dir)).toEqual(['9001_later.sql']);
      const rows = await db.query<{ name: string; method: string; colocation: number }>(sql`
        SELECT logicalrelid::regclass::text AS name, partmethod AS method, colocationid AS colocation FROM pg_dist_partition
         WHERE logicalrelid IN ('wishlists'::regclass, 'order_notes'::regclass, 'orders'::regclass) ORDER BY 1`);
      expect(rows.map((r) => r.method)).toEqual(['h', 'h', 'h']);
      expect(new Set(rows.map((r) => r.colocation)).size).toBe(1);
      // The column and the index reached the shards: a router query uses the column; every shard has the index.
      expect(await db.query(sql`SELECT gift_note FROM orders WHERE company_id = ${'nobody'}`)).toEqual([]);
      const [idx] = await db.query<{ ok: boolean }>(sql`
        SELECT bool_and(success AND result::int = 1) AS ok
          FROM run_command_on_shards('orders', $$SELECT count(*) FROM pg_indexes WHERE tablename = '%s' AND indexname ~ '^orders_gift_note'$$)`);
      expect(idx.ok).toBe(true);
      const fks = await db.query<{ name: string }>(
        sql`SELECT conrelid::regclass::text || '->' || confrelid::regclass::text AS name FROM pg_constraint WHERE contype = 'f'`,
      );
      expect(fks.map((f) => f.name)).toEqual(expect.arrayContaining(['order_notes->orders', 'order_notes->companies', 'wishlists->companies']));
      // Idempotent: a second run has nothing to do.
      const again = await distribute(db);
      expect(again).toMatchObject({ citus: true, reference: [], distributed: [], statements: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
