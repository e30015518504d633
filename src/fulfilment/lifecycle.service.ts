import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { AppError, notFound } from '../contract/errors.js';
import type { OrderStatus } from '../contract/statuses.js';
import { newId } from '../lib/ids.js';
import { Decimal } from '../lib/money.js';
import { companyAutoCourierBooking, findShipFromLocation, insertCourierBookingJob } from '../orders/orders.queries.js';
import { convertReservations, releaseReservations, reserveStock, returnShippedStock } from '../orders/reservations.js';
import { recordOrderEvent } from '../orders/order-events.js';
import { requestCodConfirmation, settleCodConfirmation } from '../orders/cod-confirmation.queries.js';
import { issueCreditNoteTx, issueInvoiceTx } from './billing.service.js';
import { findBookingLines, findShipment, lockOrder, recordShipmentStatus, setOrderLocation, setOrderStatus, type LockedOrder } from './fulfilment.queries.js';
import type { OrderViews } from './order-view.js';

/** Order moves staff (and couriers' tracking) may make; anything else is refused. */
export const ORDER_MOVES: Readonly<Record<OrderStatus, readonly OrderTarget[]>> = {
  draft: ['confirmed', 'cancelled'],
  confirmed: ['packed', 'shipped', 'cancelled'],
  packed: ['shipped', 'cancelled'],
  shipped: ['delivered', 'returned'],
  delivered: ['returned'],
  cancelled: [],
  returned: [],
};
export const ORDER_TARGETS = ['confirmed', 'packed', 'shipped', 'delivered', 'cancelled', 'returned'] as const satisfies readonly OrderStatus[];
export type OrderTarget = (typeof ORDER_TARGETS)[number];

/**
 * The order's state machine: each move (confirm, pack, ship, deliver, cancel, return) with its stock and
 * invoice effects, under the order's row lock. Shipping calls applyMove when a courier's update moves the order.
 */
export function createLifecycleService({
  db,
  config,
  clock,
  views,
}: {
  db: Db;
  config: Pick<Config, 'INVOICE_DUE_DAYS'>;
  clock: () => Date;
  views: OrderViews;
}) {
  /** One move with its stock effects, inside the caller's transaction, the order row already locked. */
  async function applyMove(tx: Db, companyId: string, order: LockedOrder, to: OrderTarget, now: Date): Promise<void> {
    if (!(ORDER_MOVES[order.status] ?? []).includes(to)) {
      const allowed = ORDER_MOVES[order.status] ?? [];
      throw new AppError(
        'validation_failed',
        `order ${order.order_number} is ${order.status}; it cannot move to ${to}` +
          (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (no further moves)'),
        [{ path: 'status', message: `${order.status} -> ${to} is not allowed` }],
      );
    }
    // A COD order awaiting its buyer's confirmation is neither packed nor shipped; a cancellation settles it (docs/decisions.md).
    if ((to === 'packed' || to === 'shipped') && order.cod_confirmation === 'pending') {
      throw new AppError(
        'validation_failed',
        `order ${order.order_number} awaits the buyer's COD confirmation; confirm it first (order cod-confirm ${order.order_number} confirm)`,
        [{ path: 'status', message: `a pending COD confirmation keeps the order from ${to}` }],
      );
    }
    const from = order.status;
    const settlesCod = to === 'cancelled' && order.cod_confirmation === 'pending';
    if (to === 'confirmed') await reserveDraft(tx, companyId, order);
    else if (to === 'cancelled') {
      if (settlesCod) {
        await settleCodConfirmation(tx, companyId, order.id, 'declined', 'staff');
        order.cod_confirmation = 'declined';
      }
      await releaseReservations(tx, { companyId, orderId: order.id });
      const shipment = await findShipment(tx, companyId, order.id, true);
      if (shipment?.status === 'pending') {
        await recordShipmentStatus(tx, companyId, shipment.id, shipment, 'cancelled', 'cli', 'order cancelled', now);
        if (from !== 'draft') await recordOrderEvent(tx, companyId, 'shipment.updated', order.id, now);
      }
      await issueCreditNoteTx(tx, companyId, order.id, 'cancelled', now);
    } else if (to === 'shipped') {
      await convertReservations(tx, { companyId, orderId: order.id });
      await issueInvoiceTx(tx, companyId, order, now, config.INVOICE_DUE_DAYS);
    } else if (to === 'returned') {
      await returnShippedStock(tx, { companyId, orderId: order.id });
      await issueCreditNoteTx(tx, companyId, order.id, 'returned', now);
    }
    await setOrderStatus(tx, companyId, order.id, to);
    order.status = to;
    // A draft was never shown through the API: its confirmation is the order's creation, its cancellation nothing.
    if (from === 'draft') {
      if (to === 'confirmed') await recordOrderEvent(tx, companyId, 'order.created', order.id, now);
      if (order.cod_confirmation === 'pending') await recordOrderEvent(tx, companyId, 'order.cod_confirmation_requested', order.id, now);
    } else await recordOrderEvent(tx, companyId, 'order.status_changed', order.id, now);
    if (settlesCod) await recordOrderEvent(tx, companyId, 'order.cod_confirmation_settled', order.id, now);
  }

  /** Draft -> confirmed: stock reserved under the same rules as POST /orders (409 short, 422 no location). */
  async function reserveDraft(tx: Db, companyId: string, order: LockedOrder): Promise<void> {
    const locationId = await findShipFromLocation(tx, companyId);
    if (!locationId) throw new AppError('unprocessable', 'the company has no active stock location to ship orders from; the draft stays a draft');
    const lines = await findBookingLines(tx, companyId, order.id);
    await reserveStock(tx, {
      companyId,
      locationId,
      orderId: order.id,
      lines: lines.map((l) => ({ variantId: l.variant_id, quantity: new Decimal(l.quantity), productId: l.sku })),
    });
    await setOrderLocation(tx, companyId, order.id, locationId);
    // the same decision as place_order()'s: a COD order of a company that confirms COD first waits for its buyer
    if (await requestCodConfirmation(tx, companyId, order.id, order.payment)) order.cod_confirmation = 'pending';
    await enqueueIfEligible(tx, companyId, order);
  }

  /**
   * The spec's rule: a booking is due when automatic booking is on and the address is usable; a COD order awaiting its
   * buyer's confirmation waits for it.
   */
  async function enqueueIfEligible(tx: Db, companyId: string, order: Pick<LockedOrder, 'id' | 'delivery_address' | 'cod_confirmation'>): Promise<boolean> {
    if (!order.delivery_address || order.cod_confirmation === 'pending' || !(await companyAutoCourierBooking(tx, companyId))) return false;
    if (await findShipment(tx, companyId, order.id)) return false;
    await insertCourierBookingJob(tx, companyId, newId('job'), order.id);
    return true;
  }

  /** order move <ref> <status>: one transaction under the order's row lock. */
  async function move(companyId: string, reference: string, to: OrderTarget) {
    const orderId = await views.orderIdOf(companyId, reference);
    await db.tx(async (tx) => {
      const order = await lockOrder(tx, companyId, orderId);
      if (!order) throw notFound(`no order "${reference}" in this company`);
      await applyMove(tx, companyId, order, to, clock());
    });
    return views.view(companyId, orderId);
  }

  return {
    applyMove,
    enqueueIfEligible,
    view: async (companyId: string, reference: string) => views.view(companyId, await views.orderIdOf(companyId, reference)),
    move,
    confirm: (companyId: string, reference: string) => move(companyId, reference, 'confirmed'),
  };
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
