import { sql } from 'drizzle-orm';
import type { Db } from './client.js';

/** A table as Citus's catalogue (`citus_tables`) describes it. */
export interface CitusTable {
  table: string;
  type: string;
  column: string;
  colocation: number;
  shards: number;
}

/** Every table Citus knows, reference tables first; only on a Citus coordinator (the view exists nowhere else). */
export async function citusTables(db: Db): Promise<CitusTable[]> {
  return db.query<CitusTable>(sql`
            SELECT table_name::text AS "table", citus_table_type AS type, distribution_column AS "column",
                   colocation_id AS colocation, shard_count AS shards
              FROM citus_tables ORDER BY citus_table_type DESC, table_name::text`);
}
