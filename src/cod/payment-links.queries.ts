import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, orderPaymentLinks, type OrderPaymentLinkRow } from '../db/schema/index.js';

/** An order's payment links (order_payment_links, migration 0027) and the order columns turning COD into prepaid. */

const FIELDS = ['id', 'order_id', 'provider', 'short_url', 'amount', 'status', 'expires_at', 'payment_id', 'created_at', 'paid_at'] as const;
export type PaymentLinkRow = Pick<OrderPaymentLinkRow, (typeof FIELDS)[number]>;
const COLUMNS = columnList(orderPaymentLinks, FIELDS);

export async function insertPaymentLink(
  tx: Db,
  companyId: string,
  l: Pick<PaymentLinkRow, 'id' | 'order_id' | 'provider' | 'short_url' | 'amount' | 'expires_at'>,
): Promise<PaymentLinkRow> {
  const rows = await tx.query<PaymentLinkRow>(sql`
    INSERT INTO order_payment_links (company_id, id, order_id, provider, short_url, amount, expires_at)
    VALUES (${companyId}, ${l.id}, ${l.order_id}, ${l.provider}, ${l.short_url}, ${l.amount}::numeric, ${l.expires_at?.toISOString() ?? null}::timestamptz)
    RETURNING ${COLUMNS}`);
  return rows[0];
}

/** The order's newest link still payable at `now` (status created, not past its expiry), if any. */
export async function findLivePaymentLink(db: Db, companyId: string, orderId: string, now: Date): Promise<PaymentLinkRow | undefined> {
  const rows = await db.query<PaymentLinkRow>(sql`
    SELECT ${COLUMNS} FROM order_payment_links
    WHERE company_id = ${companyId} AND order_id = ${orderId} AND status = 'created'
      AND (expires_at IS NULL OR expires_at > ${now.toISOString()}::timestamptz)
    ORDER BY created_at DESC LIMIT 1`);
  return rows[0];
}

/** The link under its row lock (callers hold its order's lock first). */
export async function lockPaymentLink(tx: Db, companyId: string, linkId: string): Promise<PaymentLinkRow | undefined> {
  const rows = await tx.query<PaymentLinkRow>(sql`SELECT ${COLUMNS} FROM order_payment_links WHERE company_id = ${companyId} AND id = ${linkId} FOR UPDATE`);
  return rows[0];
}

export async function markPaymentLinkPaid(tx: Db, companyId: string, linkId: string, paymentId: string, at: Date): Promise<void> {
  await tx.query(sql`
    UPDATE order_payment_links SET status = 'paid', payment_id = ${paymentId}, paid_at = ${at.toISOString()}::timestamptz
    WHERE company_id = ${companyId} AND id = ${linkId}`);
}

/** A link still `created` becomes expired or cancelled; one already paid (or closed) keeps what it is. */
export async function closePaymentLink(tx: Db, companyId: string, linkId: string, status: 'expired' | 'cancelled'): Promise<boolean> {
  const rows = await tx.query(sql`
    UPDATE order_payment_links SET status = ${status} WHERE company_id = ${companyId} AND id = ${linkId} AND status = 'created' RETURNING id`);
  return rows.length === 1;
}

/** The COD order, paid by a link, becomes prepaid; its number, lines and reservations are not touched. */
export async function setOrderPrepaid(tx: Db, companyId: string, orderId: string, paymentId: string): Promise<void> {
  await tx.query(sql`
    UPDATE orders SET payment = 'prepaid', payment_reference = ${paymentId}, updated_at = now()
    WHERE company_id = ${companyId} AND id = ${orderId}`);
}
