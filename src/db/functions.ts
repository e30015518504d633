import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitSql } from './split-sql.js';

/**
 * The live definition of every database function: `src/db/functions/<name>.sql`, one function each. Migrations are
 * history (they created and replaced these functions on the way); migrate() applies these files after them on every
 * run. Found from the project root, from src/db and dist/db alike, as MIGRATIONS_DIR is.
 */
export const FUNCTIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'db', 'functions');

/** How a function plans its statements (`plan_cache_mode`): PostgreSQL's own choice, or forced one way. */
export type PlanMode = 'auto' | 'custom' | 'generic';
const SETTING: Record<PlanMode, string | null> = { auto: null, custom: 'force_custom_plan', generic: 'force_generic_plan' };

export interface DbFunction {
  name: string;
  /** The file's one statement, `CREATE OR REPLACE FUNCTION <name>(…)`, after its header of comments. */
  statement: string;
  /**
   * The header's `-- plan: postgres=<mode> citus=<mode>` line: the mode on one PostgreSQL (and PGlite), and on a
   * Citus coordinator. On Citus a PL/pgSQL function is `custom`: a generic plan of a statement Citus cannot prune
   * later is sent to every shard of every company. On one PostgreSQL there are no shards: `auto` keeps a generic plan
   * once it costs no more than the custom ones; `generic` where a custom plan is never worth its planning.
   */
  plan: { postgres: PlanMode; citus: PlanMode };
}

const PLAN_LINE = /^-- plan: postgres=(auto|custom|generic) citus=(auto|custom|generic)$/m;

/** Every function file, by name; a file that is not one `CREATE OR REPLACE FUNCTION <its name>(` with a plan line throws. */
export function readFunctions(dir: string = FUNCTIONS_DIR): DbFunction[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.sql'.length);
      const text = readFileSync(join(dir, file), 'utf8');
      const plan = PLAN_LINE.exec(text);
      if (!plan) throw new Error(`${file}: no "-- plan: postgres=<auto|custom|generic> citus=<auto|custom|generic>" line`);
      const statements = splitSql(text);
      if (statements.length !== 1 || !definesFunction(statements[0], name)) {
        throw new Error(`${file}: must hold one statement, CREATE OR REPLACE FUNCTION ${name}(…)`);
      }
      return { name, statement: statements[0], plan: { postgres: plan[1] as PlanMode, citus: plan[2] as PlanMode } };
    });
}

/** The statement (its leading comments aside) is `CREATE OR REPLACE FUNCTION <name>(`. */
export function definesFunction(statement: string, name: string): boolean {
  const code = statement.replace(/^(\s*--[^\n]*\n)*\s*/, '');
  return code.startsWith(`CREATE OR REPLACE FUNCTION ${name}(`);
}

/**
 * The statements that make the database's functions those of the files, in the database at hand (`citus`: the
 * extension is there): each file's CREATE OR REPLACE, which also clears any plan mode a migration set, then its mode
 * where one is forced. A database that gains the `citus` extension gets its modes at the next migrate.
 */
export function functionStatements(functions: DbFunction[], citus: boolean): string[] {
  return functions.flatMap(({ name, statement, plan }) => {
    const setting = SETTING[citus ? plan.citus : plan.postgres];
    return [statement, ...(setting ? [`ALTER FUNCTION ${name} SET plan_cache_mode = ${setting}`] : [])];
  });
}
