import type { Db } from '../db/index.js';
import { AppError } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { Decimal, qty } from '../lib/money.js';
import { refreshInStockOfVariants } from '../catalogue/catalogue.queries.js';
import {
  applyStockDeltas,
  callReserveStock,
  findOrderReservations,
  lockStockRows,
  markReservationsConverted,
  markReservationsReleased,
  type ReservationLine,
  type ReservationRow,
} from './reservations.queries.js';

/**
 * The only code that changes stock_levels.reserved: this module and the reserve_stock() SQL function it
 * wraps (src/db/functions/reserve_stock.sql; place_order() calls it too). Every change happens under the stock rows' locks,
 * taken in sorted variant-id order so that orders over the same variants cannot deadlock, and each is
 * recorded as an open reservation row: reserved = sum(open reservations) per stock row, always. A change that can
 * raise or lower a variant's availability refreshes its product's in-stock flag (src/db/functions/refresh_in_stock.sql) after the stock rows,
 * in the same transaction (lock order: stock rows, then products).
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
  try {
    await callReserveStock(tx, { companyId, locationId, orderId, lines: reservationLines(lines) });
  } catch (err) {
    throw insufficientStock(err) ?? err;
  }
}

/** The order's reservations in `status`, with their stock rows locked in the same sorted order as reserveStock. */
async function lockOrderReservations(tx: Db, companyId: string, orderId: string, status: 'open' | 'converted'): Promise<ReservationRow[]> {
  const rows = await findOrderReservations(tx, companyId, orderId, status);
  if (rows.length === 0) return rows;
  await lockStockRows(tx, companyId, rows);
  return rows;
}

/** Cancel: the order's open reservations are released (reserved drops; on_hand unchanged). Returns rows released. */
export async function releaseReservations(tx: Db, { companyId, orderId }: { companyId: string; orderId: string }): Promise<number> {
  const rows = await lockOrderReservations(tx, companyId, orderId, 'open');
  await applyStockDeltas(tx, companyId, rows, 0, -1);
  await refreshInStockOfVariants(
    tx,
    companyId,
    rows.map((r) => r.variant_id),
  );
  await markReservationsReleased(tx, companyId, orderId);
  return rows.length;
}

/**
 * Ship: the goods leave the ship-from location, so on_hand and reserved both drop by each open reservation. Availability
 * (on_hand - reserved) is unchanged, so no in-stock flag can change.
 */
export async function convertReservations(tx: Db, { companyId, orderId }: { companyId: string; orderId: string }): Promise<number> {
  const rows = await lockOrderReservations(tx, companyId, orderId, 'open');
  await applyStockDeltas(tx, companyId, rows, -1, -1);
  await markReservationsConverted(tx, companyId, orderId);
  return rows.length;
}

/**
 * Return: what shipping took (the converted reservations) goes back on hand at the location it left.
 * The caller's order status (returned is final) guarantees this runs once per order.
 */
export async function returnShippedStock(tx: Db, { companyId, orderId }: { companyId: string; orderId: string }): Promise<number> {
  const rows = await lockOrderReservations(tx, companyId, orderId, 'converted');
  await applyStockDeltas(tx, companyId, rows, 1, 0);
  await refreshInStockOfVariants(
    tx,
    companyId,
    rows.map((r) => r.variant_id),
  );
  return rows.length;
}
