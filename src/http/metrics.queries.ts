import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';

/** What the metrics scrape reads from the database: the outboxes' backlog (across companies) and lock waits. */

export interface Backlog {
  jobs_pending: number;
  jobs_oldest_due_s: number;
  deliveries_pending: number;
  deliveries_oldest_due_s: number;
}

export async function queryBacklog(db: Db): Promise<Backlog> {
  const [row] = await crossCompany<Record<keyof Backlog, string | number | null>>(
    db,
    'metrics.backlog',
    sql`SELECT
      (SELECT count(*) FROM jobs WHERE status = 'pending') AS jobs_pending,
      (SELECT extract(epoch FROM now() - min(run_at)) FROM jobs WHERE status = 'pending' AND run_at <= now()) AS jobs_oldest_due_s,
      (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS deliveries_pending,
      (SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now())
        AS deliveries_oldest_due_s`,
  );
  const n = (v: string | number | null | undefined) => Number(v ?? 0);
  return {
    jobs_pending: n(row?.jobs_pending),
    jobs_oldest_due_s: n(row?.jobs_oldest_due_s),
    deliveries_pending: n(row?.deliveries_pending),
    deliveries_oldest_due_s: n(row?.deliveries_oldest_due_s),
  };
}

/** Sessions of this database waiting for a lock (pg_stat_activity; not on PGlite, one connection). */
export async function countLockWaiters(db: Db): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return row?.n ?? 0;
}
