import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/index.js';
import { migrate } from './db/migrate.js';

/** Opens the database (server or embedded) and applies pending migrations. */
export async function openMigratedDatabase(config: Config, log: (msg: string) => void = () => {}): Promise<Database> {
  const db = await openDatabase(config, log);
  try {
    const applied = await migrate(db, undefined, log);
    if (applied.length) log(`applied ${applied.length} migration(s)`);
    return db;
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}

/** A rate-limit check is sub-millisecond; past this, Redis is taken as away and the request goes on (fail open). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/** Redis for shared rate limits; waits for the first connection so a wrong URL fails at start. */
export async function openRedis(url: string, timeoutMs = 5000): Promise<Redis> {
  // commandTimeout: on a silent partition (no reset) a command would otherwise wait for TCP to give up,
  // and every request with it.
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: timeoutMs,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    lazyConnect: true,
  });
  redis.on('error', () => {}); // reconnects by itself; requests meanwhile fail open (docs/decisions.md)
  await redis.connect();
  return redis;
}
