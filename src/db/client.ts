import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PgDialect } from 'drizzle-orm/pg-core';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { PGlite, Transaction as PGliteTx } from '@electric-sql/pglite';

export type Row = Record<string, unknown>;

/**
 * What services see of the database: parameterised queries built with drizzle's `sql` template,
 * and transactions. The same interface runs on a `pg` pool and on embedded PGlite.
 */
export interface Db {
  readonly kind: 'pg' | 'pglite';
  /** Runs one statement. `name` makes it a named prepared statement on `pg` (planned once per connection). */
  query<T = Row>(query: SQL, name?: string): Promise<T[]>;
  /** Runs `fn` in one transaction; deadlocks and serialization failures are retried (see retryable). */
  tx<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
}

/** in_use: reads go to it; lagging: it did not replay the primary's commits within the bound; down: unreachable, or not a standby. */
export type ReplicaState = 'in_use' | 'lagging' | 'down';

export interface ReplicaStatus {
  state: ReplicaState;
  /**
   * At the last check, how long the replica took to replay what the primary had committed when the check began (in
   * use), or how long it has not (lagging); null when down.
   */
  lagMs: number | null;
  /** statements sent here since start, answered by the replica or by the primary in its place */
  reads: { replica: number; primary: number };
}

export interface Database extends Db {
  /** Where catalogue reads go when DATABASE_REPLICA_URL is set (src/db/replica.ts); absent without a replica. */
  readonly replica?: Db & { status(): ReplicaStatus };
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * The pool's connections (metrics, load shedding): open, idle, and queries waiting for one; PGlite is one connection
   * and queues inside itself, so it never reports a query waiting.
   */
  poolStats(): { max: number; total: number; idle: number; waiting: number };
  /** Runs SQL text of several statements (migrations) inside one transaction holding `lockKey`. */
  execScriptsLocked(lockKey: number, fn: (exec: (text: string) => Promise<void>, db: Db) => Promise<void>): Promise<void>;
  /**
   * Runs `fn` on one connection of its own, without the pool's timeouts, each statement in its own transaction
   * (distribution on Citus: session advisory lock, statements that must not share a transaction).
   */
  session<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

const dialect = new PgDialect();
const TX_ATTEMPTS = 5;

// Both drivers agree: numeric and int8 stay strings (exact), timestamptz becomes a Date.
const PG_INT8 = 20;
const PG_NUMERIC = 1700;
const PG_TIMESTAMPTZ = 1184;
const PG_TIMESTAMP = 1114;
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8 || oid === PG_NUMERIC) return (v: string) => v;
    if (oid === PG_TIMESTAMP) return (v: string) => new Date(`${v.replace(' ', 'T')}Z`);
    // pg-types declares its parsers as `any`: each takes the text form and returns the driver's value.
    return pg.types.getTypeParser(oid, format ?? 'text') as (v: string) => unknown;
  },
};
const pgliteParsers = {
  [PG_INT8]: (v: string) => v,
  [PG_NUMERIC]: (v: string) => v,
  [PG_TIMESTAMPTZ]: (v: string) => new Date(v),
  [PG_TIMESTAMP]: (v: string) => new Date(`${v.replace(' ', 'T')}Z`),
};

/** Errors worth retrying a whole transaction for: deadlock, serialization failure. */
export function retryable(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** Runs `attempt` again on deadlock or serialization failure (a fresh try each time), a few times at most. */
export async function withRetry<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!retryable(err) || i >= TX_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * i));
    }
  }
}

type PgQueryable = Pick<pg.PoolClient, 'query'>;

function pgRunner(client: PgQueryable): Db['query'] {
  return async <T>(query: SQL, name?: string) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    const res = await client.query({ text, values: params, name, types: pgTypes });
    return res.rows as T[];
  };
}

/**
 * Statements outside a transaction: a client checked out for each, as `pool.query` does (released with the error on
 * failure, so a broken connection is dropped), but not through `pool.query`. A client the pool opens for a query
 * keeps the callback of that first request reachable for the client's whole life (pg-pool's connect closure), and
 * through it the query's result: a 300,000-variant catalogue load stayed in memory that way (81 MB of heap).
 * Checked out by promise, the client holds only itself.
 */
function poolRunner(pool: pg.Pool): Db['query'] {
  return async <T>(query: SQL, name?: string) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    const client = await pool.connect();
    let released = false;
    const release = (err?: Error) => {
      if (released) return;
      released = true;
      client.release(err);
    };
    client.once('error', release);
    try {
      const res = await client.query({ text, values: params, name, types: pgTypes });
      return res.rows as T[];
    } catch (err) {
      release(err as Error);
      throw err;
    } finally {
      client.removeListener('error', release);
      release();
    }
  };
}

export interface PgOptions {
  url: string;
  poolMax: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

export function createPgDatabase(opts: PgOptions): Database {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolMax,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    statement_timeout: opts.statementTimeoutMs,
    idle_in_transaction_session_timeout: opts.statementTimeoutMs * 3,
    query_timeout: opts.statementTimeoutMs + 1000,
    application_name: 'commerce-api',
  });
  // An idle client's error (server restart) must not crash the process; the pool discards that client.
  pool.on('error', () => {});

  const txOn = (client: pg.PoolClient): Db => ({
    kind: 'pg',
    query: pgRunner(client),
    tx: (fn) => fn(txOn(client)), // nested: same transaction
  });

  const runTx = async <T>(fn: (tx: Db) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let broken = false;
    // A checked-out client is not covered by pool.on('error'): a connection lost between two statements
    // of this transaction would otherwise be an uncaught 'error' event and end the process.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn(txOn(client));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  };

  const query = poolRunner(pool);
  return {
    kind: 'pg',
    query,
    tx: (fn) => withRetry(() => runTx(fn)),
    async ping() {
      await query(sql`SELECT 1`);
    },
    poolStats: () => ({ max: opts.poolMax, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await pool.end();
    },
    async session(fn) {
      const client = new pg.Client({ connectionString: opts.url, connectionTimeoutMillis: opts.connectTimeoutMs, application_name: 'commerce-api-migrate' });
      await client.connect();
      try {
        await client.query('SET statement_timeout = 0');
        const db: Db = { kind: 'pg', query: pgRunner(client), tx: (inner) => inner(db) };
        return await fn(db);
      } finally {
        await client.end().catch(() => {});
      }
    },
    async execScriptsLocked(lockKey, fn) {
      // A connection of its own without the pool's timeouts: a migration backfilling a large table may take
      // minutes, and a client-side query_timeout would abandon it half-way (the transaction then rolls back).
      const client = new pg.Client({ connectionString: opts.url, connectionTimeoutMillis: opts.connectTimeoutMs, application_name: 'commerce-api-migrate' });
      await client.connect();
      try {
        // A session lock taken before BEGIN: a transaction left open while waiting would hold the catalogue locks
        // Citus takes per statement, and block the DDL of the instance that is migrating.
        await waitForLock(client, `pg_try_advisory_lock(${Number(lockKey)})`);
        await client.query('BEGIN');
        await client.query('SET LOCAL statement_timeout = 0');
        const tx: Db = { kind: 'pg', query: pgRunner(client), tx: (inner) => inner(tx) };
        await fn(async (text) => {
          await client.query(text);
        }, tx);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        await client.end().catch(() => {}); // ends the session, and its advisory lock with it
      }
    },
  };
}

/**
 * Takes an advisory lock by trying until it is free rather than by waiting in the lock manager: on Citus, a
 * backend waiting for a local lock held by a transaction that is running DDL on the workers is taken for a
 * distributed deadlock and cancelled (two instances migrating together). `tryLock` is a pg_try_advisory_* call.
 */
export async function waitForLock(client: Pick<pg.Client, 'query'>, tryLock: string): Promise<void> {
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    const res = await client.query<{ ok: boolean }>(`SELECT ${tryLock} AS ok`);
    if (res.rows[0]?.ok) return;
    await new Promise((r) => setTimeout(r, wait));
  }
}

/**
 * PGlite does not lock its data folder, and a second process opening it corrupts it (pglite#323):
 * hold a lock file with our pid; a stale one (its process gone) is taken over.
 */
function acquireDataDirLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, 'commerce-api.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockPath, 'utf8').trim());
      if (pid && pid !== process.pid && processAlive(pid)) {
        throw new Error(
          `The embedded database folder ${resolve(dataDir)} is in use by process ${pid}. ` +
            'If that is the service starting, admin commands run through it once it is ready (try again in a moment); ' +
            'otherwise stop that process, or set DATA_DIR to another folder, or set DATABASE_URL to use a PostgreSQL server.',
          { cause: err },
        );
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock ${lockPath}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type PGliteQueryable = Pick<PGlite, 'query'> | PGliteTx;

function pgliteRunner(client: PGliteQueryable): Db['query'] {
  return async <T>(query: SQL) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    const res = await client.query<T>(text, params, { parsers: pgliteParsers });
    return res.rows;
  };
}

/** Embedded PostgreSQL in a folder (`dataDir`), or in memory when `dataDir` is undefined (tests). */
export async function createPgliteDatabase(dataDir: string | undefined): Promise<Database> {
  const release = dataDir ? acquireDataDirLock(dataDir) : () => {};
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    const client = await PGlite.create(dataDir, { extensions: { pg_trgm } });

    const txOn = (tx: PGliteTx): Db => ({ kind: 'pglite', query: pgliteRunner(tx), tx: (fn) => fn(txOn(tx)) });
    const runTx = <T>(fn: (tx: Db) => Promise<T>) => client.transaction((tx) => fn(txOn(tx)));

    return {
      kind: 'pglite',
      query: pgliteRunner(client),
      tx: (fn) => withRetry(() => runTx(fn)),
      async ping() {
        await client.query('SELECT 1');
      },
      poolStats: () => ({ max: 1, total: 1, idle: 1, waiting: 0 }),
      async close() {
        try {
          await client.close();
        } finally {
          release();
        }
      },
      async session(fn) {
        // One connection already, and our lock file.
        const db: Db = { kind: 'pglite', query: pgliteRunner(client), tx: (inner) => inner(db) };
        return fn(db);
      },
      async execScriptsLocked(_lockKey, fn) {
        // One connection and our lock file: nobody else can be migrating this folder.
        await client.transaction(async (tx) => {
          await fn(async (text) => {
            await tx.exec(text);
          }, txOn(tx));
        });
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
