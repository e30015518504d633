import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createPgDatabase } from '../../src/db/client.js';
import { FUNCTIONS_DIR } from '../../src/db/functions.js';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { citusWorkers, dropCitusDatabase, isCitusServer, withDatabase, type CitusNode } from './citus.js';

export { withDatabase };

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Server URL whose database `template` holds a migrated schema; null means embedded PGlite. On a Citus
     * coordinator `citus` lists the workers, and there is no template (each file builds its own database).
     */
    testDb: { serverUrl: string; template: string; citus?: { workers: CitusNode[] } } | null;
  }
}

/**
 * Real PostgreSQL for every test file: TEST_DATABASE_URL / DATABASE_URL first, then a testcontainers
 * PostgreSQL where Docker runs, else embedded PGlite. A migrated template database is built once; each
 * test file clones it (CREATE DATABASE … TEMPLATE), so files run in parallel without sharing data.
 * On a Citus coordinator (test/helpers/citus.ts) templates cannot be propagated: no template is built, and each
 * file creates, migrates and distributes its own database on every node.
 */
export default async function setup(project: TestProject) {
  let stopContainer: (() => Promise<unknown>) | undefined;
  let serverUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!serverUrl && process.env.TEST_PGLITE === '1') {
    console.warn('[tests] TEST_PGLITE=1: embedded PGlite, one database per file');
    project.provide('testDb', null);
    return;
  }
  if (!serverUrl) {
    try {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:16-alpine').start();
      serverUrl = container.getConnectionUri();
      stopContainer = () => container.stop();
    } catch {
      console.warn('[tests] no TEST_DATABASE_URL and no Docker: using embedded PGlite (slower, one database per file)');
      project.provide('testDb', null);
      return;
    }
  }

  if (await isCitusServer(serverUrl)) {
    const workers = await citusWorkers(serverUrl);
    if (!workers.length) throw new Error(`[tests] ${serverUrl} is a Citus coordinator without active workers`);
    console.warn(`[tests] Citus coordinator with ${workers.length} worker(s): each test file gets its own distributed database`);
    await dropStale(serverUrl, (name) => dropCitusDatabase(serverUrl, name, workers));
    project.provide('testDb', { serverUrl, template: '', citus: { workers } });
    return async () => {
      await stopContainer?.();
    };
  }

  const migrationsHash = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR).sort()) migrationsHash.update(f).update(readFileSync(join(MIGRATIONS_DIR, f)));
  // what migrate() does besides the files (the live functions and their plan modes): a change there is a new template too
  for (const f of readdirSync(FUNCTIONS_DIR).sort()) migrationsHash.update(f).update(readFileSync(join(FUNCTIONS_DIR, f)));
  for (const f of ['migrate.ts', 'functions.ts', 'distribute.ts']) migrationsHash.update(readFileSync(join(MIGRATIONS_DIR, '..', 'src', 'db', f)));
  const template = `commerce_tmpl_${migrationsHash.digest('hex').slice(0, 12)}`;

  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (!exists.rowCount) {
      const building = `${template}_build_${process.pid}`;
      await admin.query(`CREATE DATABASE "${building}"`);
      const db = createPgDatabase({ url: withDatabase(serverUrl, building), poolMax: 2, statementTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
      await migrate(db);
      await db.close();
      try {
        await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
      } catch {
        await admin.query(`DROP DATABASE IF EXISTS "${building}"`); // another run built it meanwhile
      }
    }
  } finally {
    await admin.end();
  }
  await dropStale(serverUrl, async (name) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => c.end());
  });
  project.provide('testDb', { serverUrl, template });
  return async () => {
    await stopContainer?.();
  };
}

/** Leftovers of runs killed before their teardown: test databases are named commerce_t_<epoch s>_<rand>. */
async function dropStale(serverUrl: string, drop: (name: string) => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  let stale: string[];
  try {
    stale = (await admin.query<{ datname: string }>(String.raw`SELECT datname FROM pg_database WHERE datname ~ '^commerce_t_\d+_'`)).rows.map((r) => r.datname);
  } finally {
    await admin.end();
  }
  const hourAgo = Date.now() / 1000 - 3600;
  for (const name of stale) if (Number(name.split('_')[2]) < hourAgo) await drop(name).catch(() => {});
}
