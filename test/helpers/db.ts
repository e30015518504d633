import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPgDatabase, createPgliteDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { withDatabase } from './global-setup.js';

export interface TestDatabase {
  db: Database;
  /** pg URL of this file's own database; undefined on PGlite. */
  url?: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database of this test file's own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const testDb = inject('testDb');
  if (!testDb) {
    const db = await createPgliteDatabase(undefined);
    await migrate(db);
    return { db, drop: () => db.close() };
  }
  const name = `commerce_t_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDb.serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${testDb.template}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(testDb.serverUrl, name);
  const db = createPgDatabase({ url, poolMax: 30, statementTimeoutMs: 30_000, connectTimeoutMs: 10_000 });
  return {
    db,
    url,
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: testDb.serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}
