import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from './client.js';
import { distribute, hasCitus, SCHEMA_LOCK } from './distribute.js';
import { FUNCTIONS_DIR, functionStatements, readFunctions } from './functions.js';
import { splitSql } from './split-sql.js';
import type { schemaMigrations } from './schema/index.js';

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'migrations');

/**
 * Applies pending `migrations/NNNN_name.sql` files in order, in one transaction, under an advisory lock; then, in the
 * same transaction, every function of `src/db/functions/` with its plan mode for this database (`functions.ts`), on
 * every run; then, where the `citus` extension is present, distributes what is not distributed yet (`distribute.ts`,
 * the same lock key, so instances starting together take turns). Without Citus that last step is one catalogue
 * lookup. The function files are the bodies for the whole history: a migrations folder other than the project's
 * (tests replaying part of it) gets none unless `functionsDir` is given.
 */
export async function migrate(
  db: Database,
  dir: string = MIGRATIONS_DIR,
  log?: (msg: string) => void,
  functionsDir: string | null = dir === MIGRATIONS_DIR ? FUNCTIONS_DIR : null,
): Promise<string[]> {
  const functions = functionsDir ? readFunctions(functionsDir) : [];
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  await db.execScriptsLocked(SCHEMA_LOCK, async (exec, tx) => {
    const citus = await hasCitus(tx);
    if (citus) {
      // DDL on distributed tables fans out to every shard: sequential, so a later statement of the same migration
      // may still touch a reference table; and exempt from the tests' cross-company guard (docs/scaling.md).
      await exec("SET LOCAL citus.multi_shard_modify_mode = 'sequential'; SET LOCAL citus.multi_task_query_log_level = off");
    }
    await exec('CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set(
      (await tx.query<Pick<typeof schemaMigrations.$inferSelect, 'version'>>(sql`SELECT version FROM schema_migrations`)).map((r) => r.version),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      log?.(`applying migration ${file}`);
      for (const statement of splitSql(readFileSync(join(dir, file), 'utf8'))) await exec(statement); // one by one: see split-sql.ts
      await tx.query(sql`INSERT INTO schema_migrations (version) VALUES (${file})`);
      applied.push(file);
    }
    for (const statement of functionStatements(functions, citus)) await exec(statement);
  });
  const spread = await distribute(db);
  if (spread.reference.length || spread.distributed.length) {
    log?.(`citus: ${spread.reference.length} reference table(s), ${spread.distributed.length} distributed table(s) by company_id`);
  }
  return applied;
}
