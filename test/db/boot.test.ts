import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createPgDatabase, createPgliteDatabase } from '../../src/db/client.js';
import { distribute } from '../../src/db/distribute.js';
import { migrate } from '../../src/db/migrate.js';
import { createEmptyDatabase, onCitus } from '../helpers/db.js';

describe('configuration', () => {
  it('has defaults for everything', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 3000, BASE_PATH: '/api/v1/commerce', DATA_DIR: './data', RATE_LIMIT_MAX: 60 });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('fails fast with a message naming each bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', BASE_PATH: 'api/', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', BASE_PATH: 'api/', SIGNING_SECRET: 'short' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT/);
      expect((err as Error).message).toMatch(/BASE_PATH/);
      expect((err as Error).message).toMatch(/SIGNING_SECRET/);
    }
  });

  it('treats an empty DATABASE_URL as unset (embedded database)', () => {
    expect(loadConfig({ DATABASE_URL: '  ' }).DATABASE_URL).toBeUndefined();
  });
});

describe('migrations', () => {
  // On Citus the database has the extension on every node, and each instance also distributes under the same lock.
  it('apply once when two instances start together (advisory lock)', { timeout: 120_000 }, async (t) => {
    const empty = await createEmptyDatabase();
    if (!empty) return t.skip('PGlite: one process per data folder, no second instance to race');
    const opts = { url: empty.url, poolMax: 2, statementTimeoutMs: 30_000, connectTimeoutMs: 5_000 };
    const [a, b] = [createPgDatabase(opts), createPgDatabase(opts)];
    try {
      const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
      expect([...ra, ...rb].sort()).toEqual([...new Set([...ra, ...rb])].sort()); // nothing applied twice
      expect(ra.length + rb.length).toBeGreaterThanOrEqual(3);
      const rows = await a.query<{ version: string }>(sql`SELECT version FROM schema_migrations ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual([...ra, ...rb].sort());
      expect(await migrate(a)).toEqual([]);
      if (onCitus()) {
        // Distributed exactly once: every tenant table in pg_dist_partition, and a third run has nothing to do.
        const [{ n }] = await a.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_dist_partition WHERE partmethod = 'h'`);
        expect(n).toBeGreaterThanOrEqual(19);
        expect((await distribute(a)).statements).toEqual([]);
      }
    } finally {
      await a.close();
      await b.close();
      await empty.drop();
    }
  });

  it("give a long migration the time it needs, whatever the pool's statement timeout", async (t) => {
    const empty = await createEmptyDatabase();
    if (!empty) return t.skip('PGlite: no statement timeout to outlast');
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    writeFileSync(join(dir, '0001_slow.sql'), 'CREATE TABLE slow (id int); SELECT pg_sleep(1.5);');
    const db = createPgDatabase({ url: empty.url, poolMax: 2, statementTimeoutMs: 200, connectTimeoutMs: 5_000 });
    try {
      expect(await migrate(db, dir)).toEqual(['0001_slow.sql']);
      // The pool itself keeps its timeout.
      await expect(db.query(sql`SELECT pg_sleep(1)`)).rejects.toThrow(/statement timeout|timeout/i);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
      await empty.drop();
    }
  });

  it('roll back a failing migration whole', { timeout: PGLITE_TIMEOUT_MS }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    writeFileSync(join(dir, '0001_ok.sql'), 'CREATE TABLE t1 (id int);');
    writeFileSync(join(dir, '0002_bad.sql'), 'CREATE TABLE t2 (id int); SELECT * FROM no_such_table;');
    const db = await createPgliteDatabase(undefined);
    try {
      await expect(migrate(db, dir)).rejects.toThrow(/no_such_table/);
      const rows = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_tables WHERE tablename IN ('t1', 't2', 'schema_migrations')`);
      expect(rows[0].n).toBe(0);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// A fresh PGlite runs initdb (2-17 s here) and then every migration, on 2 cores shared with the rest of the
// suite: a guard against a hang, not a speed check.
const PGLITE_TIMEOUT_MS = 120_000;

describe('embedded PostgreSQL (PGlite)', { timeout: PGLITE_TIMEOUT_MS }, () => {
  it('runs every migration and keeps numeric, int8 and timestamps like pg does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-'));
    const db = await createPgliteDatabase(dir);
    try {
      expect((await migrate(db)).length).toBeGreaterThanOrEqual(3);
      const [row] = await db.query<{ n: string; big: string; at: Date }>(sql`SELECT 12.50::numeric(12,2) AS n, 9007199254740993::int8 AS big, now() AS at`);
      expect(row).toEqual({ n: '12.50', big: '9007199254740993', at: expect.any(Date) });
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a second process on the same data folder with a clear error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-'));
    // A live process other than us holds the lock: pid 1 always exists.
    writeFileSync(join(dir, 'commerce-api.lock'), '1');
    await expect(createPgliteDatabase(dir)).rejects.toThrow(/in use by process 1/);
    // A stale lock (its process gone) is taken over.
    writeFileSync(join(dir, 'commerce-api.lock'), '999999999');
    const db = await createPgliteDatabase(dir);
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
