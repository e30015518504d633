import type { Config } from '../config.js';
import { createPgDatabase, createPgliteDatabase, type Database } from './client.js';

export type { Database, Db, Row } from './client.js';
export { withRetry } from './client.js';

/** `DATABASE_URL` set: a PostgreSQL server through a pg pool; otherwise embedded PGlite in DATA_DIR. */
export async function openDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'DB_POOL_MAX' | 'DB_STATEMENT_TIMEOUT_MS' | 'DB_CONNECT_TIMEOUT_MS'>,
): Promise<Database> {
  if (config.DATABASE_URL) {
    return createPgDatabase({
      url: config.DATABASE_URL,
      poolMax: config.DB_POOL_MAX,
      statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    });
  }
  return createPgliteDatabase(config.DATA_DIR);
}
