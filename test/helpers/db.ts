import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPgDatabase, createPgliteDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { createCitusDatabase, dropCitusDatabase, guardCrossCompany } from './citus.js';
import { withDatabase } from './global-setup.js';

export interface TestDatabase {
  db: Database;
  /** pg URL of this file's own database; undefined on PGlite. */
  url?: string;
  drop(): Promise<void>;
}

/** True when the suite runs against a Citus coordinator (test/helpers/citus.ts). */
export function onCitus(): boolean {
  return Boolean(inject('testDb')?.citus);
}

const newName = () => `commerce_t_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;

/**
 * An empty database of this test's own on the test server (on Citus: on every node, with the extension and the
 * workers registered, not migrated), with its URL and how to drop it. Undefined on PGlite.
 */
export async function createEmptyDatabase(): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  const testDb = inject('testDb');
  if (!testDb) return undefined;
  const name = newName();
  if (testDb.citus) {
    const url = await createCitusDatabase(testDb.serverUrl, name, testDb.citus.workers);
    return { url, drop: () => dropCitusDatabase(testDb.serverUrl, name, testDb.citus!.workers) };
  }
  await withAdmin(testDb.serverUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    url: withDatabase(testDb.serverUrl, name),
    drop: () => withAdmin(testDb.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

/**
 * A fresh, migrated database of this test file's own. On Citus: created on every node, migrated and distributed
 * (src/db/migrate.ts does both), then guarded: a query that crosses shards fails (guardCrossCompany).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const testDb = inject('testDb');
  if (!testDb) {
    const db = await createPgliteDatabase(undefined);
    await migrate(db);
    return { db, drop: () => db.close() };
  }
  const name = newName();
  if (testDb.citus) {
    const { workers } = testDb.citus;
    const url = await createCitusDatabase(testDb.serverUrl, name, workers);
    try {
      const setup = createPgDatabase({ url, poolMax: 2, statementTimeoutMs: 120_000, connectTimeoutMs: 10_000 });
      await migrate(setup).finally(() => setup.close());
      await guardCrossCompany(testDb.serverUrl, name);
    } catch (err) {
      await dropCitusDatabase(testDb.serverUrl, name, workers).catch(() => {});
      throw err;
    }
    // Opened after the guard: ALTER DATABASE … SET applies to connections made from now on.
    const db = createPgDatabase({ url, poolMax: 30, statementTimeoutMs: 30_000, connectTimeoutMs: 10_000 });
    return {
      db,
      url,
      async drop() {
        await db.close();
        await dropCitusDatabase(testDb.serverUrl, name, workers).catch(() => {});
      },
    };
  }
  await withAdmin(testDb.serverUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${testDb.template}"`));
  const url = withDatabase(testDb.serverUrl, name);
  const db = createPgDatabase({ url, poolMax: 30, statementTimeoutMs: 30_000, connectTimeoutMs: 10_000 });
  return {
    db,
    url,
    async drop() {
      await db.close();
      await withAdmin(testDb.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => {});
    },
  };
}

async function withAdmin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
