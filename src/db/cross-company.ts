import { sql, type SQL } from 'drizzle-orm';
import type { Db } from './client.js';

/**
 * Every statement that reads across companies, by name. Under Citus (tables distributed by
 * company_id) each of these touches every shard; every other statement of the service names one company and
 * runs on that company's shard alone (a router statement). They are few, cheap and off the request path: none
 * of them serves an API request of a tenant. A test run on Citus sets citus.multi_task_query_log_level to
 * 'error', so a statement that crosses companies without going through crossCompany() below fails.
 */
export const CROSS_COMPANY_QUERIES = {
  /** Courier worker poll: up to n companies with a due pending booking job (no row lock; the claim is per company). */
  'worker.due-companies': 'courier worker: companies with a due pending booking job',
  /** Webhook delivery worker poll: up to n companies with a due pending delivery (no row lock; the claim is per company). */
  'webhooks.due-companies': 'webhook worker: companies with a due pending delivery',
  /** Checkout expiry worker poll: up to n open sessions past their expiry (no row lock; each is claimed in its own transaction). */
  'checkout.expired-sessions': 'checkout expiry worker: open sessions past their expiry',
  /** COD confirmation worker poll: up to n pending confirmations past their time limit, of companies that cancel them (no row lock; each is claimed in its own transaction). */
  'cod.overdue-confirmations': 'COD confirmation worker: pending confirmations past their time limit',
  /** UCP order-event worker poll: up to n companies owing a platform a due order event (no row lock; the claim is per company). */
  'ucp.order-events-due-companies': 'UCP order-event worker: companies owing a platform a due order event',
  /** Admin `jobs list` without --company: the latest jobs of every company. */
  'admin.jobs-list': 'admin jobs list across companies',
  /** Admin `jobs retry <job id>`: the company of a job named by id alone. */
  'admin.job-company': 'admin jobs retry: the company of a job id',
  /** Admin `orders attention` without --company: held courier updates and failed bookings of every company. */
  'admin.attention': 'admin orders attention across companies',
  /** Metrics scrape: the courier and webhook outboxes' pending counts and the age of the oldest due item. */
  'metrics.backlog': 'metrics: outbox and webhook backlog',
} as const;

export type CrossCompanyQuery = keyof typeof CROSS_COMPANY_QUERIES;

const citusByDb = new WeakMap<Db, Promise<boolean>>();

/** Whether this database is a Citus coordinator (the extension is installed); false on PGlite and plain PostgreSQL. */
export function isCitus(db: Db): Promise<boolean> {
  if (db.kind === 'pglite') return Promise.resolve(false);
  let known = citusByDb.get(db);
  if (!known) {
    known = db.query<{ citus: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`).then((r) => r[0]?.citus === true);
    known.catch(() => citusByDb.delete(db));
    citusByDb.set(db, known);
  }
  return known;
}

/**
 * Runs one of the named cross-company reads. On plain PostgreSQL and PGlite it is the query itself (tagged with
 * its name in a comment, seen in pg_stat_statements and logs). On Citus it runs in a transaction with
 * citus.multi_task_query_log_level 'off' for that transaction, so a guard that makes unnamed multi-shard
 * statements fail lets this one through. Call it with the pool, not inside another transaction: there the guard
 * would stay off until that transaction ends (every caller today is a worker poll or an admin listing).
 */
export async function crossCompany<T>(db: Db, name: CrossCompanyQuery, query: SQL): Promise<T[]> {
  const tagged = sql`/* cross-company: ${sql.raw(name)} */ ${query}`;
  if (!(await isCitus(db))) return db.query<T>(tagged);
  // set_config(…, true) lasts until the end of this transaction: nothing to restore.
  return db.tx(async (tx) => {
    await tx.query(sql`SELECT set_config('citus.multi_task_query_log_level', 'off', true)`);
    return tx.query<T>(tagged);
  });
}
