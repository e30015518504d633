import type { Db } from '../db/index.js';
import { AppError } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { Decimal, qty } from '../lib/money.js';
import { refreshInStockOfVariants } from '../catalogue/catalogue.queries.js';
import {
  applyStockDeltas,
  callReplaceCheckoutHolds,
  callReserveStock,
  findReservations,
  lockStockRows,
  markReservationsConverted,
  markReservationsReleased,
  type CheckoutReservationLine,
  type Holder,
  type ReservationLine,
  type ReservationRow,
} from './reservations.queries.js';

export type { Holder } from './reservations.queries.js';

/**
 * The only code that changes stock_levels.reserved: this module and the SQL functions it wraps (src/db/functions/:
 * reserve_stock.sql, and replace_checkout_holds.sql for a checkout's changed lines; place_order() calls them too, through
 * complete_checkout_stock.sql when the order completes a checkout). Every change happens under the stock rows' locks,
 * taken in sorted variant-id order so that orders over the same variants cannot deadlock, and each is
 * recorded as an open reservation row: reserved = sum(open reservations) per stock row, always. A change that can
 * raise or lower a variant's availability refreshes its product's in-stock flag (src/db/functions/refresh_in_stock.sql) after the stock rows,
 * in the same transaction (lock order: stock rows, then products).
 *
 * A reservation is held by an order or by a checkout (a buyer's checkout holds its lines until it completes, is
 * cancelled or expires). Whoever changes a checkout's holds holds the checkout's row first (lock order: checkout row,
 * then stock rows), as an order's callers hold the order's row: two changes of one holder never interleave.
 */

export interface ReservationRequest {
  variantId: string;
  quantity: Decimal;
  /** The identifier the caller sent, for the 409 details. */
  productId: string;
}

export interface ShortItem {
  product_id: string;
  requested: string;
  available: string;
}

/** SQLSTATE raised by the reserve_stock() function (src/db/functions/reserve_stock.sql) when a line is short. */
const SHORT_STOCK = 'CS409';

/** The JSON the reserve_stock() function takes, one element per (merged) line. */
export function reservationLines(lines: ReservationRequest[]): ReservationLine[] {
  return lines.map((l) => ({ variant_id: l.variantId, quantity: qty(l.quantity), product_id: l.productId, reservation_id: newId('res') }));
}

/** A reserve_stock() refusal as the API's 409, or undefined for any other error. */
export function insufficientStock(err: unknown): AppError | undefined {
  const e = err as { code?: string; detail?: string } | null;
  if (e?.code !== SHORT_STOCK || !e.detail) return undefined;
  const short: ShortItem[] = (JSON.parse(e.detail) as ShortItem[]).map((s) => ({
    product_id: s.product_id,
    requested: qty(s.requested),
    available: qty(s.available),
  }));
  const names = short.map((s) => `${s.product_id} (requested ${s.requested}, available ${s.available})`).join('; ');
  return new AppError('insufficient_stock', `not enough stock: ${names}; nothing was created`, short);
}

/**
 * Locks the rows, checks availability and reserves every line, or throws 409 insufficient_stock with
 * nothing changed. The work is the reserve_stock() function, the one place stock is reserved.
 */
export async function reserveStock(
  tx: Db,
  { companyId, locationId, orderId, lines }: { companyId: string; locationId: string; orderId: string; lines: ReservationRequest[] },
): Promise<void> {
  await refusedAs409(callReserveStock(tx, { companyId, locationId, orderId, lines: reservationLines(lines) }));
}

/** A reserve_stock() refusal (CS409) becomes the API's 409 insufficient_stock; any other error goes on as it is. */
async function refusedAs409(work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (err) {
    throw insufficientStock(err) ?? err;
  }
}

const checkoutLines = (checkoutId: string, lines: ReservationRequest[]): CheckoutReservationLine[] =>
  reservationLines(lines).map((l) => ({ ...l, checkout_id: checkoutId }));

/**
 * A checkout holds its lines: reserved as an order's are (reserve_stock(), no order, each reservation naming the
 * checkout), or 409 insufficient_stock with nothing changed.
 */
export async function holdStock(
  tx: Db,
  { companyId, locationId, checkoutId, lines }: { companyId: string; locationId: string; checkoutId: string; lines: ReservationRequest[] },
): Promise<void> {
  await refusedAs409(callReserveStock(tx, { companyId, locationId, orderId: null, lines: checkoutLines(checkoutId, lines) }));
}

/**
 * A checkout's lines changed: its open holds are released and the new lines held in their place, in one statement
 * under one sorted lock of the old and new stock rows (replace_checkout_holds()). On short stock, 409
 * insufficient_stock and the old holds stay as they were.
 */
export async function replaceHolds(
  tx: Db,
  { companyId, locationId, checkoutId, lines }: { companyId: string; locationId: string; checkoutId: string; lines: ReservationRequest[] },
): Promise<void> {
  await refusedAs409(callReplaceCheckoutHolds(tx, { companyId, locationId, checkoutId, lines: checkoutLines(checkoutId, lines) }));
}

/** The holder's reservations in `status`, with their stock rows locked in the same sorted order as reserveStock. */
async function lockReservations(tx: Db, companyId: string, holder: Holder, status: 'open' | 'converted'): Promise<ReservationRow[]> {
  const rows = await findReservations(tx, companyId, holder, status);
  if (rows.length === 0) return rows;
  await lockStockRows(tx, companyId, rows);
  return rows;
}

/**
 * Cancel or expiry: the order's or checkout's open reservations are released (reserved drops; on_hand unchanged).
 * Returns rows released; a second release finds none and changes nothing.
 */
export async function releaseReservations(tx: Db, holder: { companyId: string } & Holder): Promise<number> {
  const { companyId } = holder;
  const rows = await lockReservations(tx, companyId, holder, 'open');
  await applyStockDeltas(tx, companyId, rows, 0, -1);
  await refreshInStockOfVariants(
    tx,
    companyId,
    rows.map((r) => r.variant_id),
  );
  await markReservationsReleased(tx, companyId, holder);
  return rows.length;
}

/**
 * Ship: the goods leave the ship-from location, so on_hand and reserved both drop by each open reservation. Availability
 * (on_hand - reserved) is unchanged, so no in-stock flag can change.
 */
export async function convertReservations(tx: Db, { companyId, orderId }: { companyId: string; orderId: string }): Promise<number> {
  const rows = await lockReservations(tx, companyId, { orderId }, 'open');
  await applyStockDeltas(tx, companyId, rows, -1, -1);
  await markReservationsConverted(tx, companyId, orderId);
  return rows.length;
}

/**
 * Return: what shipping took (the converted reservations) goes back on hand at the location it left.
 * The caller's order status (returned is final) guarantees this runs once per order.
 */
export async function returnShippedStock(tx: Db, { companyId, orderId }: { companyId: string; orderId: string }): Promise<number> {
  const rows = await lockReservations(tx, companyId, { orderId }, 'converted');
  await applyStockDeltas(tx, companyId, rows, 1, 0);
  await refreshInStockOfVariants(
    tx,
    companyId,
    rows.map((r) => r.variant_id),
  );
  return rows.length;
}
