import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * SQL lives in queries: a statement, or a piece of one, is written only in a `*.queries.ts` file or under `src/db/`
 * (the client, the schema, migrations and the service's own tables). Services, workers and doors call named query
 * functions and keep the rules and the transactions. Found: drizzle's `sql` template (`sql\`…\``, `sql<T>\`…\``),
 * its helpers (`sql.join`, `sql.raw`, `sql.param`…), `sql` imported from drizzle-orm (so an alias cannot hide it),
 * a raw query string handed to `.query(…)`, and the database drivers themselves.
 */
const PATTERNS: [what: string, re: RegExp][] = [
  ['sql template', /\bsql\s*(?:<[^>`]*>)?\s*`/g],
  ['sql helper', /\bsql\.(?:raw|join|param|identifier|placeholder|empty)\b/g],
  ['sql import', /\bimport\s*\{[^}]*\bsql\b[^}]*\}\s*from\s*['"]drizzle-orm['"]/g],
  ['raw query string', /\.query\s*(?:<[^>(]*>)?\(\s*['"`]/g],
  ['database driver', /\bfrom\s*['"](?:pg|@electric-sql\/pglite)['"]/g],
];

/**
 * Files outside the queries that may still hold SQL, each with its reason. An entry that no longer holds any fails
 * the test too, so the list only shrinks.
 */
const ALLOWED: Record<string, string> = {};

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const isQueriesPlace = (file: string) => file.endsWith('.queries.ts') || file.startsWith('src/db/');

/** `<line>: <what>` for every piece of SQL in the text. */
function sqlIn(text: string): string[] {
  return PATTERNS.flatMap(([what, re]) => [...text.matchAll(re)].map((m) => ({ line: text.slice(0, m.index).split('\n').length, what })))
    .sort((a, b) => a.line - b.line)
    .map(({ line, what }) => `${line}: ${what}`);
}

describe('SQL placement', () => {
  const files = sourceFiles('src');
  const found = new Map(files.map((f) => [f, sqlIn(readFileSync(join(ROOT, f), 'utf8'))]));

  it('recognises each form of SQL, and not a typed handle or a call of a query function', () => {
    expect(sqlIn('const a = sql`SELECT 1`;')).toEqual(['1: sql template']);
    expect(sqlIn('await db.query(sql<{ n: number }>`SELECT 1`);')).toEqual(['1: sql template']);
    expect(sqlIn("import { sql as q } from 'drizzle-orm';\nconst k = q.join([], q`, `);")).toEqual(['1: sql import']);
    expect(sqlIn("import { type SQL, sql } from 'drizzle-orm';")).toEqual(['1: sql import']);
    expect(sqlIn('const v = sql.join(rows, sep);')).toEqual(['1: sql helper']);
    expect(sqlIn("await client.query('DELETE FROM orders');\nawait db.query<Row>(`SELECT 1`);")).toEqual(['1: raw query string', '2: raw query string']);
    expect(sqlIn("import pg from 'pg';")).toEqual(['1: database driver']);
    expect(sqlIn("import type { SQL } from 'drizzle-orm';\nawait findOrder(db, companyId);\nawait db.query(statement);\nconst sqlite = 1;")).toEqual([]);
  });

  it('finds the SQL where it belongs (the scan reads the real code)', () => {
    const inQueries = [...found].filter(([f]) => isQueriesPlace(f)).reduce((n, [, hits]) => n + hits.length, 0);
    expect(inQueries).toBeGreaterThan(200);
  });

  it('has SQL only in *.queries.ts and src/db/, beyond the allowed files', () => {
    const outside = [...found].filter(([f, hits]) => !isQueriesPlace(f) && hits.length > 0);
    const unexpected = outside.filter(([f]) => !(f in ALLOWED)).map(([f, hits]) => `${f} (${hits.join(', ')})`);
    expect(unexpected, 'SQL outside the queries files: move it into the domain’s <domain>.queries.ts').toEqual([]);
    const stale = Object.keys(ALLOWED).filter((f) => !outside.some(([g]) => g === f));
    expect(stale, 'ALLOWED names files without SQL (or gone): remove them').toEqual([]);
  });
});

/**
 * Citus refuses a non-immutable function in an upsert's `DO UPDATE SET` (or its WHERE) on a distributed table
 * ("functions used in the DO UPDATE SET clause of INSERTs on distributed tables must be marked IMMUTABLE"): the
 * time comes from the inserted row (`EXCLUDED.updated_at`) or a parameter. Plain PostgreSQL accepts it, so only
 * the Citus stage of CI would tell; this tells at once.
 */
describe('upserts that Citus accepts', () => {
  const doUpdateClauses = (text: string): string[] => [...text.matchAll(/DO\s+UPDATE\s+SET([\s\S]*?)(?:RETURNING|`\)|;|$)/gi)].map((m) => m[1]);
  const files = [...sourceFiles('src'), ...sourceFilesOf('src/db/functions', '.sql')];

  it('finds the clauses (the scan reads the real code) and a now() in one', () => {
    expect(files.flatMap((f) => doUpdateClauses(readFileSync(join(ROOT, f), 'utf8'))).length).toBeGreaterThan(15);
    expect(doUpdateClauses('ON CONFLICT (id) DO UPDATE SET a = 1, t = now()\n RETURNING 1').some((c) => /\bnow\(\)/i.test(c))).toBe(true);
  });

  it('no ON CONFLICT DO UPDATE calls now() in its SET or WHERE', () => {
    const offenders = files.filter((f) =>
      doUpdateClauses(readFileSync(join(ROOT, f), 'utf8')).some((c) => /\b(?:now|clock_timestamp|random|gen_random_uuid)\(\)/i.test(c)),
    );
    expect(offenders, 'take the time from EXCLUDED.<column> (set by the VALUES) or a parameter').toEqual([]);
  });
});

function sourceFilesOf(dir: string, ext: string): string[] {
  return readdirSync(join(ROOT, dir))
    .filter((n) => n.endsWith(ext))
    .map((n) => posix.join(dir, n));
}
