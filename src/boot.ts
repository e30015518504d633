import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.js';
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

/** Where openRedis says that Redis is away or back: the service's logger. */
export type RedisLog = Pick<Logger, 'warn' | 'info'>;

/** `redis://` or `rediss://` with a host, else a configuration error; answers where it points, without credentials. */
function redisTarget(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['redis:', 'rediss:'].includes(parsed.protocol) || !parsed.hostname)
    throw new ConfigError('Invalid configuration:\n  REDIS_URL: must be a redis:// or rediss:// URL naming a host, e.g. redis://redis-host:6379');
  return `${parsed.hostname}:${parsed.port || 6379}`;
}

/**
 * Redis for shared rate limits. A malformed URL is a configuration error (throws ConfigError); Redis out of reach is
 * not: the service starts as it runs when Redis goes away later (rate limits and the failed-authentication count
 * fail open, docs/decisions.md), the client keeps reconnecting, and the limits are shared again once it is back.
 * Waits up to `timeoutMs` for the first connection, so a start beside a healthy Redis is limited from its first
 * request; a warning says when it is away and a line when it is back.
 */
export async function openRedis(url: string, timeoutMs = 5000, log?: RedisLog): Promise<Redis> {
  const target = redisTarget(url);
  // commandTimeout: on a silent partition (no reset) a command would otherwise wait for TCP to give up,
  // and every request with it.
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: timeoutMs,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
  let away = false;
  // once per outage: the client retries every few seconds and each attempt fails alike
  const wentAway = (cause: string) => {
    if (away) return;
    away = true;
    log?.warn({ redis: target, cause }, 'Redis unreachable: rate limits are not shared and fail open until it is back; reconnecting');
  };
  redis.on('error', (err: NodeJS.ErrnoException) => wentAway(err.code ?? (err.message || err.name)));
  redis.on('ready', () => {
    if (away) log?.info({ redis: target }, 'Redis reachable again: rate limits are shared');
    away = false;
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done).off('error', done);
      resolve();
    }
    redis.once('ready', done).once('error', done);
  });
  if (redis.status !== 'ready') wentAway(`no connection within ${timeoutMs} ms`);
  return redis;
}
