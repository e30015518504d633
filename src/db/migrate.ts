import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from './client.js';
import type { schemaMigrations } from './schema/index.js';

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'migrations');
const MIGRATION_LOCK = 72_611_001; // advisory lock key: instances starting together migrate one at a time

/** Applies pending `migrations/NNNN_name.sql` files in order, in one transaction, under an advisory lock. */
export async function migrate(db: Database, dir: string = MIGRATIONS_DIR, log?: (msg: string) => void): Promise<string[]> {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  await db.execScriptsLocked(MIGRATION_LOCK, async (exec, tx) => {
    await exec('CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set(
      (await tx.query<Pick<typeof schemaMigrations.$inferSelect, 'version'>>(sql`SELECT version FROM schema_migrations`)).map((r) => r.version),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      log?.(`applying migration ${file}`);
      await exec(readFileSync(join(dir, file), 'utf8'));
      await tx.query(sql`INSERT INTO schema_migrations (version) VALUES (${file})`);
      applied.push(file);
    }
  });
  return applied;
}
