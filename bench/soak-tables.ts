import { sql } from 'drizzle-orm';
import type { Db } from '../src/db/index.js';

/**
 * The soak's view of the tables retention bounds (src/privacy/retention-worker.ts): their rows and their size on disk
 * (pg_total_relation_size: heap, indexes and TOAST), all companies together. With the retention worker running at a
 * short retention (--retention) the row counts stay flat while orders keep coming; the sizes level off once vacuum
 * hands the deleted rows' space back for reuse.
 */
export const RETAINED_TABLES = [
  'events',
  'webhook_deliveries',
  'jobs',
  'checkout_sessions',
  'idempotency_records',
  'ucp_order_deliveries',
  'audit_log',
] as const;

export type TableSizes = Record<(typeof RETAINED_TABLES)[number], { rows: number; bytes: number }>;

export async function tableSizes(db: Db): Promise<TableSizes> {
  const out = {} as TableSizes;
  for (const table of RETAINED_TABLES) {
    const [row] = await db.query<{ rows: number; bytes: string }>(
      sql`SELECT (SELECT count(*)::int FROM ${sql.identifier(table)}) AS rows, pg_total_relation_size(${table}::regclass)::text AS bytes`,
    );
    out[table] = { rows: Number(row.rows), bytes: Number(row.bytes) };
  }
  return out;
}

/** One line: `events 1200 rows / 456 kB, …`. */
export function sizesLine(label: string, s: TableSizes): string {
  return `${label}: ${RETAINED_TABLES.map((t) => `${t} ${s[t].rows} rows / ${Math.round(s[t].bytes / 1024)} kB`).join(', ')}`;
}
