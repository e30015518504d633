import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS_DIR, functionStatements, readFunctions } from '../../src/db/functions.js';
import { migrate } from '../../src/db/migrate.js';
import { splitSql } from '../../src/db/split-sql.js';
import { createTestDatabase, onCitus, type TestDatabase } from '../helpers/db.js';

/**
 * One current definition of each database function: src/db/functions/<name>.sql, applied by migrate() after the
 * migrations on every run. Migrations are history; a reader finds what runs today in that one file.
 */

const ROOT = join(import.meta.dirname, '..', '..');
/** The one file that reads plan modes and sets them. */
const PLAN_MODE_OWNER = 'src/db/functions.ts';
const PLAN_MODE_CODE = /plan_cache_mode|force_custom_plan|force_generic_plan/;

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(ROOT, join(e.parentPath, e.name)).split('\\').join('/'));
}

/** The body between the dollar quotes of a function file's statement, as PostgreSQL stores it (pg_proc.prosrc). */
function bodyOf(statement: string): string {
  const m = /\bAS\s+(\$\w*\$)([\s\S]*)\1\s*$/.exec(statement);
  if (!m) throw new Error(`no dollar-quoted body in ${statement.slice(0, 80)}`);
  return m[2];
}

describe('each file of src/db/functions/', () => {
  const files = readdirSync(FUNCTIONS_DIR).sort();

  it('holds one statement that defines the function it is named for, and nothing else', () => {
    expect(files.length).toBeGreaterThan(0);
    const wrong = files.filter((file) => {
      const name = file.replace(/\.sql$/, '');
      const text = readFileSync(join(FUNCTIONS_DIR, file), 'utf8');
      const statements = splitSql(text);
      const defines = [...text.matchAll(/^\s*CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([\w.]+)\s*\(/gim)].map((m) => m[1]);
      return (
        !file.endsWith('.sql') ||
        statements.length !== 1 ||
        defines.length !== 1 ||
        defines[0] !== name ||
        !/^CREATE OR REPLACE FUNCTION /.test(statements[0].replace(/^(\s*--[^\n]*\n)*\s*/, ''))
      );
    });
    expect(wrong).toEqual([]);
    expect(readFunctions().map((f) => f.name)).toEqual(files.map((f) => f.replace(/\.sql$/, '')));
  });

  it('declares its plan mode in its header only, and a PL/pgSQL function plans with its arguments on Citus', () => {
    for (const fn of readFunctions()) {
      expect(fn.statement, fn.name).not.toMatch(PLAN_MODE_CODE); // the header's `-- plan:` line says it, nowhere else
      // a generic plan of a statement Citus cannot prune is sent to every shard of every company
      if (/LANGUAGE\s+plpgsql/i.test(fn.statement)) expect(fn.plan.citus, fn.name).toBe('custom');
    }
  });
});

describe('the functions of the migrated database', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t?.drop();
  });

  interface Applied {
    name: string;
    body: string;
    def: string;
    mode: string | null;
  }
  const applied = async (): Promise<Applied[]> =>
    t.db.query<Applied>(sql`
      SELECT p.proname AS name, p.prosrc AS body, pg_get_functiondef(p.oid) AS def,
             (SELECT substr(c, length('plan_cache_mode=') + 1) FROM unnest(p.proconfig) c WHERE c LIKE 'plan_cache_mode=%') AS mode
        FROM pg_proc p
       WHERE p.pronamespace = 'public'::regnamespace
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
       ORDER BY p.proname, p.oid`);

  it('has exactly one file per function of its own (extensions aside), and no file without its function', async () => {
    const names = (await applied()).map((f) => f.name);
    expect(names).toEqual(readFunctions().map((f) => f.name));
  });

  it('runs the body of each file as written, with the plan mode its header declares for this database', async () => {
    const byName = new Map((await applied()).map((f) => [f.name, f]));
    const setting = { auto: null, custom: 'force_custom_plan', generic: 'force_generic_plan' };
    for (const fn of readFunctions()) {
      expect(byName.get(fn.name)?.body, fn.name).toBe(bodyOf(fn.statement));
      expect(byName.get(fn.name)?.mode, fn.name).toBe(setting[onCitus() ? fn.plan.citus : fn.plan.postgres]);
    }
  });

  it('is unchanged by applying the files again: the whole definition (arguments, result, attributes) is the file', async () => {
    const before = (await applied()).map((f) => f.def);
    let again: string[] = [];
    const rollback = new Error('rollback');
    await t.db
      .tx(async (tx) => {
        for (const statement of functionStatements(readFunctions(), onCitus())) await tx.query(sql.raw(statement));
        again = (
          await tx.query<{ def: string }>(sql`
          SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p
           WHERE p.pronamespace = 'public'::regnamespace
             AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
           ORDER BY p.proname, p.oid`)
        ).map((r) => r.def);
        throw rollback;
      })
      .catch((err: unknown) => {
        if (err !== rollback) throw err;
      });
    expect(again).toEqual(before);
  });

  it('gets the files back at the next migrate when a body or a mode was changed by hand', async () => {
    await t.db.query(
      sql.raw(`CREATE OR REPLACE FUNCTION bump_catalogue_version(p_company text) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RETURN -1; END $$`),
    );
    await t.db.query(sql.raw('ALTER FUNCTION record_event SET plan_cache_mode = force_generic_plan'));
    await migrate(t.db);
    const byName = new Map((await applied()).map((f) => [f.name, f]));
    const file = readFunctions().find((f) => f.name === 'bump_catalogue_version')!;
    expect(byName.get('bump_catalogue_version')?.body).toBe(bodyOf(file.statement));
    expect(byName.get('record_event')?.mode).toBe(onCitus() ? 'force_custom_plan' : null);
  });
});

describe('plan modes have one owner', () => {
  it(`are read and set only in ${PLAN_MODE_OWNER} (migrations keep theirs as history)`, () => {
    const code = ['src', 'bench', 'scripts'].flatMap(filesUnder).filter((f) => /\.(ts|sql|js|mjs)$/.test(f));
    const outside = code.filter((f) => f !== PLAN_MODE_OWNER && PLAN_MODE_CODE.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(outside).toEqual([]);
    expect(PLAN_MODE_CODE.test(readFileSync(join(ROOT, PLAN_MODE_OWNER), 'utf8'))).toBe(true);
  });

  it('and functions are defined only in src/db/functions/ (and, as history, in migrations)', () => {
    const code = ['src', 'bench', 'scripts']
      .flatMap(filesUnder)
      .filter((f) => /\.(ts|sql|js|mjs)$/.test(f) && !f.startsWith('src/db/functions/') && f !== 'src/db/functions.ts');
    const defining = code.filter((f) => /CREATE\s+(OR\s+REPLACE\s+)?FUNCTION/i.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(defining).toEqual([]);
  });
});
