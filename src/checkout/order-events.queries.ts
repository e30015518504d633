import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';
import type { UcpOrderDeliveryRow } from '../db/schema/index.js';

/** The UCP order-event outbox's statements (order-events-worker.ts; rows written by place_order() and recordOrderEvent). */

/** Up to `limit` companies owing a platform a due order event; read without locks, across companies (named). */
export async function findCompaniesOwingOrderEvents(db: Db, limit: number): Promise<string[]> {
  const rows = await crossCompany<{ company_id: string }>(
    db,
    'ucp.order-events-due-companies',
    sql`SELECT DISTINCT company_id FROM ucp_order_deliveries WHERE status = 'pending' AND next_attempt_at <= now() LIMIT ${limit}`,
  );
  return rows.map((r) => r.company_id);
}

export type ClaimedOrderEvent = Pick<UcpOrderDeliveryRow, 'id' | 'checkout_id' | 'order_id' | 'event_type' | 'url' | 'attempts' | 'created_at'>;

/**
 * Claims up to `batch` due events of one company, oldest first (SKIP LOCKED: another instance takes others): each
 * counts an attempt and is not due again until `leaseMs` from now, so one whose sender dies is retried after that.
 */
export async function claimOrderEvents(db: Db, companyId: string, leaseMs: number, batch: number): Promise<ClaimedOrderEvent[]> {
  return db.query<ClaimedOrderEvent>(sql`
    UPDATE ucp_order_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
     WHERE d.company_id = ${companyId} AND d.id IN (
       SELECT x.id FROM ucp_order_deliveries x
        WHERE x.company_id = ${companyId} AND x.status = 'pending' AND x.next_attempt_at <= now()
        ORDER BY x.created_at, x.id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
    RETURNING d.id, d.checkout_id, d.order_id, d.event_type, d.url, d.attempts, d.created_at`);
}

/** The company's slug, which names its UCP business in links (companies is a reference table: one small read). */
export async function findCompanySlug(db: Db, companyId: string): Promise<string | undefined> {
  const [row] = await db.query<{ slug: string }>(sql`SELECT slug FROM companies WHERE id = ${companyId}`);
  return row?.slug;
}

/** One attempt's outcome: delivered, failed for good, or pending again from `nextAttemptAt`. */
export async function settleOrderEvent(
  db: Db,
  companyId: string,
  id: string,
  o: { status: 'pending' | 'delivered' | 'failed'; code: number | null; error: string | null; at: Date; nextAttemptAt: Date },
): Promise<void> {
  await db.query(sql`
    UPDATE ucp_order_deliveries
       SET status = ${o.status}, last_status = ${o.code}, last_error = ${o.error},
           delivered_at = ${o.status === 'delivered' ? o.at.toISOString() : null}::timestamptz, next_attempt_at = ${o.nextAttemptAt.toISOString()}::timestamptz
     WHERE company_id = ${companyId} AND id = ${id}`);
}
