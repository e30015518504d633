import { sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * `a, b, c`: a select (or RETURNING) list of a table's own columns, the names checked against its declaration.
 * The text is exactly the names, so a prepared statement's text stays as written by hand. Type the rows with
 * `Pick<typeof table.$inferSelect, (typeof names)[number]>`.
 */
export function columnList<T extends PgTable, K extends keyof T['$inferSelect'] & string>(_table: T, names: readonly K[]): SQL {
  return sql.raw(names.join(', '));
}
