import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database, Db } from '../../src/db/index.js';

const dialect = new PgDialect();

/**
 * A database handle that records the text of every statement sent through it (transactions included), so a test can
 * count a request's round trips. It passes everything to the real database.
 */
export function recordingDatabase(db: Database): Database & { statements: string[] } {
  const statements: string[] = [];
  const wrap = (inner: Db): Db => ({
    kind: inner.kind,
    query: <T>(query: SQL, name?: string) => {
      statements.push(dialect.sqlToQuery(query).sql);
      return inner.query<T>(query, name);
    },
    tx: (fn) => inner.tx((tx) => fn(wrap(tx))),
  });
  return Object.assign(Object.create(db) as Database, wrap(db), { statements });
}

/** The key's own look-up by hash, which a key this instance already knows skips (key-check.ts). */
export const keyLookups = (all: string[]) => all.filter((s) => /\bkey_hash = \$1/.test(s));

/** The statements of one request, the key's last-used write left out (off the request's path, once a minute). */
export const requestStatements = (all: string[]) => all.filter((s) => !/UPDATE api_keys SET last_used_at/.test(s));
