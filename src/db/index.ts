import type { Config } from '../config.js';
import { createPgDatabase, createPgliteDatabase, type Database } from './client.js';
import { createReadReplica } from './replica.js';

export type { Database, Db, Row } from './client.js';
export { withRetry } from './client.js';

/**
 * `DATABASE_URL` set: a PostgreSQL server through a pg pool, with catalogue reads sent to the streaming replica at
 * `DATABASE_REPLICA_URL` when that is set (`replica`); otherwise embedded PGlite in DATA_DIR.
 */
export async function openDatabase(
  config: Pick<
    Config,
    'DATABASE_URL' | 'DATA_DIR' | 'DB_POOL_MAX' | 'DB_STATEMENT_TIMEOUT_MS' | 'DB_CONNECT_TIMEOUT_MS' | 'DATABASE_REPLICA_URL' | 'DATABASE_REPLICA_MAX_LAG_MS'
  >,
  log: (msg: string) => void = () => {},
): Promise<Database> {
  if (!config.DATABASE_URL) {
    if (config.DATABASE_REPLICA_URL) throw new Error('DATABASE_REPLICA_URL is a replica of the server at DATABASE_URL: set DATABASE_URL too');
    return createPgliteDatabase(config.DATA_DIR);
  }
  const pool = { poolMax: config.DB_POOL_MAX, statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS };
  const primary = createPgDatabase({ url: config.DATABASE_URL, ...pool });
  if (!config.DATABASE_REPLICA_URL) return primary;
  const replica = createReadReplica(primary, {
    url: config.DATABASE_REPLICA_URL,
    maxLagMs: config.DATABASE_REPLICA_MAX_LAG_MS,
    ...pool,
    onState: (state, why) => log(`read replica ${state.replace('_', ' ')}${why ? `: ${why}` : ''}`),
  });
  return {
    ...primary,
    replica,
    async close() {
      await replica.close();
      await primary.close();
    },
  };
}
