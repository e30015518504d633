import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../src/db/index.js';
import { isCitus } from '../../src/db/cross-company.js';

/**
 * A test's own statement over every company of its database (each test file has a database of its own), such as
 * "no table of any company changed" or "close every pending job". On Citus the suite's guard refuses a statement
 * that runs on several shards; this one runs with the guard off for its transaction, as the service's named
 * cross-company reads do (src/db/cross-company.ts). Elsewhere it is the statement itself.
 */
export async function acrossCompanies<T = Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  if (!(await isCitus(db))) return db.query<T>(query);
  return db.tx(async (tx) => {
    await tx.query(sql`SELECT set_config('citus.multi_task_query_log_level', 'off', true)`);
    return tx.query<T>(query);
  });
}
