import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';
import type { CheckoutSessionRow } from '../db/schema/index.js';

/**
 * The checkout expiry worker's statements (expiry-worker.ts). The open statuses are written out as in the partial index
 * checkout_sessions_open_expiry (migration 0023), so the planner can use it.
 */

export type ExpiredCheckout = Pick<CheckoutSessionRow, 'company_id' | 'id'>;

/**
 * Up to `limit` open sessions past their expiry, the longest expired first; read without locks, across companies
 * (named in CROSS_COMPANY_QUERIES). One probe of the partial index of open sessions: with none due it finds nothing.
 */
export async function findExpiredCheckouts(db: Db, limit: number): Promise<ExpiredCheckout[]> {
  return crossCompany<ExpiredCheckout>(
    db,
    'checkout.expired-sessions',
    sql`SELECT company_id, id FROM checkout_sessions
          WHERE status IN ('incomplete', 'requires_escalation', 'ready_for_complete') AND expires_at <= now()
          ORDER BY expires_at LIMIT ${limit}`,
  );
}

/**
 * Locks the session if it is still open and expired; false when it is not, or when another transaction holds it (SKIP
 * LOCKED: a completion or change in progress, or another instance expiring it), so the worker never waits on one.
 */
export async function claimExpiredCheckout(tx: Db, companyId: string, id: string): Promise<boolean> {
  const rows = await tx.query(sql`
    SELECT id FROM checkout_sessions
    WHERE company_id = ${companyId} AND id = ${id}
      AND status IN ('incomplete', 'requires_escalation', 'ready_for_complete') AND expires_at <= now()
    FOR UPDATE SKIP LOCKED`);
  return rows.length > 0;
}

/** The (locked) session is canceled. */
export async function cancelCheckout(tx: Db, companyId: string, id: string): Promise<void> {
  await tx.query(sql`UPDATE checkout_sessions SET status = 'canceled', updated_at = now() WHERE company_id = ${companyId} AND id = ${id}`);
}
