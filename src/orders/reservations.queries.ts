import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, stockReservations, type StockReservationRow } from '../db/schema/index.js';

/** The statements of the reservation module (reservations.ts), the only code that changes stock_levels.reserved. */

/** One element of the JSON reserve_stock() takes, per (merged) line. */
export interface ReservationLine {
  variant_id: string;
  quantity: string;
  product_id: string;
  reservation_id: string;
}

/** A checkout's line: the reservation names the checkout (reserve_stock() with no order). */
export type CheckoutReservationLine = ReservationLine & { checkout_id: string };

/**
 * Whose stock a reservation holds: an order's, or a checkout's. A checkout's rows that completion gave to its order
 * (order_id set, checkout_id kept) are the order's from then on, never the checkout's again.
 */
export type Holder = { orderId: string } | { checkoutId: string };

const heldBy = (h: Holder) => ('orderId' in h ? sql`order_id = ${h.orderId}` : sql`checkout_id = ${h.checkoutId} AND order_id IS NULL`);

/**
 * reserve_stock(), the database function: locks, checks and reserves every line in one statement, or raises CS409.
 * The reservations name the order, or (orderId null) the checkout each line names (CheckoutReservationLine).
 */
export async function callReserveStock(
  tx: Db,
  { companyId, locationId, orderId, lines }: { companyId: string; locationId: string; orderId: string | null; lines: ReservationLine[] },
): Promise<void> {
  await tx.query(sql`SELECT reserve_stock(${companyId}, ${locationId}, ${orderId}, ${JSON.stringify(lines)}::jsonb)`, 'reserve_stock');
}

/**
 * replace_checkout_holds(), the database function: the checkout's open holds released and `lines` reserved for it in
 * their place, under one sorted lock of both's stock rows; CS409 on short stock, with nothing changed.
 */
export async function callReplaceCheckoutHolds(
  tx: Db,
  { companyId, locationId, checkoutId, lines }: { companyId: string; locationId: string; checkoutId: string; lines: CheckoutReservationLine[] },
): Promise<void> {
  await tx.query(sql`SELECT replace_checkout_holds(${companyId}, ${locationId}, ${checkoutId}, NULL, ${JSON.stringify(lines)}::jsonb)`);
}

const RESERVATION_FIELDS = ['id', 'variant_id', 'location_id', 'quantity'] as const;
export type ReservationRow = Pick<StockReservationRow, (typeof RESERVATION_FIELDS)[number]>;
const RESERVATION_COLUMNS = columnList(stockReservations, RESERVATION_FIELDS);

/** The holder's reservations in `status`, in stock-row order (sorted variant, then location). */
export async function findReservations(tx: Db, companyId: string, holder: Holder, status: 'open' | 'converted'): Promise<ReservationRow[]> {
  return tx.query<ReservationRow>(sql`
    SELECT ${RESERVATION_COLUMNS} FROM stock_reservations
    WHERE company_id = ${companyId} AND ${heldBy(holder)} AND status = ${status}
    ORDER BY variant_id COLLATE "C", location_id COLLATE "C"`);
}

/** Locks the stock rows of these reservations, in the same sorted order as reserve_stock(); rows must not be empty. */
export async function lockStockRows(tx: Db, companyId: string, rows: ReservationRow[]): Promise<void> {
  const keys = sql.join(
    rows.map((r) => sql`(${r.variant_id}, ${r.location_id})`),
    sql`, `,
  );
  await tx.query(sql`
    SELECT 1 FROM stock_levels WHERE company_id = ${companyId} AND (variant_id, location_id) IN (${keys})
    ORDER BY variant_id COLLATE "C", location_id COLLATE "C"
    FOR UPDATE`);
}

/** on_hand += dOnHand * q, reserved += dReserved * q on the (locked) stock rows of these reservations; no statement for none. */
export async function applyStockDeltas(tx: Db, companyId: string, rows: ReservationRow[], dOnHand: -1 | 0 | 1, dReserved: -1 | 0): Promise<void> {
  if (rows.length === 0) return;
  const values = sql.join(
    rows.map((r) => sql`(${r.variant_id}, ${r.location_id}, ${r.quantity}::numeric)`),
    sql`, `,
  );
  await tx.query(sql`
    UPDATE stock_levels s SET on_hand = s.on_hand + ${dOnHand}::int * x.q, reserved = s.reserved + ${dReserved}::int * x.q, updated_at = now()
    FROM (SELECT v, l, sum(q) AS q FROM (VALUES ${values}) AS t(v, l, q) GROUP BY v, l) AS x
    WHERE s.company_id = ${companyId} AND s.variant_id = x.v AND s.location_id = x.l`);
}

/** Cancel or expiry: the holder's open reservations are closed as released. */
export async function markReservationsReleased(tx: Db, companyId: string, holder: Holder): Promise<void> {
  await tx.query(sql`
    UPDATE stock_reservations SET status = 'released', closed_at = now()
    WHERE company_id = ${companyId} AND ${heldBy(holder)} AND status = 'open'`);
}

/** Ship: the order's open reservations are closed as converted. */
export async function markReservationsConverted(tx: Db, companyId: string, orderId: string): Promise<void> {
  await tx.query(sql`
    UPDATE stock_reservations SET status = 'converted', closed_at = now()
    WHERE company_id = ${companyId} AND order_id = ${orderId} AND status = 'open'`);
}
