import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';
import type { CodConfirmationState, CodSettledBy, OrderRow } from '../db/schema/index.js';

/**
 * An order's COD confirmation (migrations 0027, 0029): asked by request_cod_confirmation()
 * (src/db/functions/request_cod_confirmation.sql), settled here once, by the buyer, staff, the time limit or a payment.
 */

/** Asks for a COD confirmation of a just-confirmed order when its company wants one: the due time, or null (nothing asked). */
export async function requestCodConfirmation(tx: Db, companyId: string, orderId: string, payment: OrderRow['payment']): Promise<Date | null> {
  const rows = await tx.query<{ due_at: Date | null }>(sql`SELECT request_cod_confirmation(${companyId}, ${orderId}, ${payment}, now()) AS due_at`);
  return rows[0].due_at;
}

/** The (locked) order's pending confirmation becomes `outcome`; false when it was not pending. */
export async function settleCodConfirmation(
  tx: Db,
  companyId: string,
  orderId: string,
  outcome: Exclude<CodConfirmationState, 'pending'>,
  by: CodSettledBy,
): Promise<boolean> {
  const rows = await tx.query(sql`
    UPDATE orders SET cod_confirmation = ${outcome}, cod_confirmation_settled_at = now(), cod_confirmation_settled_by = ${by}, updated_at = now()
    WHERE company_id = ${companyId} AND id = ${orderId} AND cod_confirmation = 'pending' RETURNING id`);
  return rows.length === 1;
}

export type OverdueConfirmation = Pick<OrderRow, 'company_id' | 'id' | 'order_number'>;

/**
 * Up to `limit` pending confirmations past their time limit whose company cancels them (on_timeout 'cancel'), the
 * longest overdue first; read without locks, across companies (named in CROSS_COMPANY_QUERIES). Those a company
 * leaves to staff are listed by `orders attention` instead.
 */
export async function findOverdueCodConfirmations(db: Db, limit: number): Promise<OverdueConfirmation[]> {
  return crossCompany<OverdueConfirmation>(
    db,
    'cod.overdue-confirmations',
    sql`SELECT o.company_id, o.id, o.order_number FROM orders o
          JOIN cod_settings s ON s.company_id = o.company_id AND s.on_timeout = 'cancel'
         WHERE o.cod_confirmation = 'pending' AND o.cod_confirmation_due_at <= now()
         ORDER BY o.cod_confirmation_due_at LIMIT ${limit}`,
  );
}

/**
 * Locks the order if its confirmation is still pending and overdue; false when it is not, or when another transaction
 * holds it (SKIP LOCKED: the buyer answering, staff moving it, or another instance), so the worker never waits on one.
 */
export async function claimOverdueCodConfirmation(tx: Db, companyId: string, orderId: string): Promise<boolean> {
  const rows = await tx.query(sql`
    SELECT id FROM orders
     WHERE company_id = ${companyId} AND id = ${orderId} AND cod_confirmation = 'pending' AND cod_confirmation_due_at <= now()
     FOR UPDATE SKIP LOCKED`);
  return rows.length > 0;
}
