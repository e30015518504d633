import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { SHIPMENT_MOVES, SHIPMENT_STATUSES, shipmentMove, trackingUrlFor, type AdapterName, type ShipmentStatus } from '../couriers/index.js';
import { AppError, notFound, validationError } from '../contract/errors.js';
import { issuesToDetails } from '../contract/validation.js';
import { newId } from '../lib/ids.js';
import { type Decimal, money } from '../lib/money.js';
import { deliveryAddress } from '../orders/order-input.js';
import { insertCourierBookingJob } from '../orders/orders.queries.js';
import { recordOrderEvent } from '../orders/order-events.js';
import { deliveryAddressInput } from '../contract/orders.js';
import { issueInvoiceTx, setDeliveryCashTx } from './billing.service.js';
import {
  findAttention,
  findCourierConfig,
  findOrderIdByAwb,
  findOrderIdForStaff,
  findShipment,
  insertCourierHold,
  insertShipment,
  insertShipmentEvent,
  lockOrder,
  recordShipmentStatus,
  resolveCourierHold,
  setOrderAddress,
  updateShipment,
  type TrackSource,
} from './fulfilment.queries.js';
import type { LifecycleService } from './lifecycle.service.js';
import type { OrderViews } from './order-view.js';
import { ADDRESS_CAN_CHANGE, DELIVERY_HELD_FOR_STAFF, LEFT_US, READY_TO_SHIP } from './status-rules.js';

/** What a tracking update did: applied, a repeat (nothing changed), history only, or held for staff. */
export type TrackOutcome = { result: 'applied' | 'repeated' | 'not_applied' | 'held'; message: string };

const withNote = (what: string, note: string | null) => (note ? `${what}; ${note}` : what);

/** Getting an order to its customer: the address, the booking, the shipment, couriers' tracking updates and the holds they leave for staff. */
export function createShippingService({
  db,
  config,
  clock,
  views,
  lifecycle,
}: {
  db: Db;
  config: Pick<Config, 'INVOICE_DUE_DAYS'>;
  clock: () => Date;
  views: OrderViews;
  lifecycle: Pick<LifecycleService, 'applyMove' | 'enqueueIfEligible'>;
}) {
  return {
    /** Sets the delivery address of an order not yet handed to a courier; it may then be booked automatically. */
    async setAddress(companyId: string, reference: string, input: unknown) {
      const parsed = deliveryAddressInput.safeParse(input);
      if (!parsed.success) throw validationError(issuesToDetails(parsed.error.issues, '', ['delivery_address']));
      const address = deliveryAddress(parsed.data);
      const orderId = await views.orderIdOf(companyId, reference);
      const enqueued = await db.tx(async (tx) => {
        const order = await lockOrder(tx, companyId, orderId);
        if (!order) throw notFound(`no order "${reference}" in this company`);
        if (!ADDRESS_CAN_CHANGE[order.status])
          throw new AppError('validation_failed', `order ${order.order_number} is ${order.status}; its address can no longer change`);
        const shipment = await findShipment(tx, companyId, orderId);
        if (shipment && shipment.status !== 'pending')
          throw new AppError(
            'validation_failed',
            `order ${order.order_number} already has a booked shipment (${shipment.awb ?? 'no AWB'}); cancel it with the courier first`,
          );
        await setOrderAddress(tx, companyId, orderId, address);
        order.delivery_address = address;
        return order.status === 'draft' ? false : lifecycle.enqueueIfEligible(tx, companyId, order);
      });
      return { ...(await views.view(companyId, orderId)), booking_enqueued: enqueued };
    },

    /** Staff ask for a courier booking now (also when automatic booking is off). */
    async requestBooking(companyId: string, reference: string) {
      const orderId = await views.orderIdOf(companyId, reference);
      await db.tx(async (tx) => {
        const order = await lockOrder(tx, companyId, orderId);
        if (!order || !READY_TO_SHIP[order.status]) throw new AppError('validation_failed', `order ${reference} must be confirmed or packed to book a courier`);
        if (order.cod_confirmation === 'pending')
          throw new AppError('validation_failed', `order ${order.order_number} awaits the buyer's COD confirmation; confirm it first (order cod-confirm)`, [
            { path: 'cod_confirmation', message: 'pending: a courier is booked once it is confirmed' },
          ]);
        if (!order.delivery_address)
          throw new AppError('validation_failed', `order ${order.order_number} has no delivery address`, [
            { path: 'delivery_address', message: 'required to book a courier' },
          ]);
        if (await findShipment(tx, companyId, orderId)) throw new AppError('validation_failed', `order ${order.order_number} already has a shipment`);
        await insertCourierBookingJob(tx, companyId, newId('job'), orderId);
      });
      return views.view(companyId, orderId);
    },

    /** Manual courier: staff record AWB and courier; the order ships (stock converted, invoice issued). */
    async ship(companyId: string, reference: string, opts: { awb?: string; courier?: string; trackingUrl?: string }) {
      const orderId = await views.orderIdOf(companyId, reference);
      const now = clock();
      await db
        .tx(async (tx) => {
          const order = await lockOrder(tx, companyId, orderId);
          if (!order) throw notFound(`no order "${reference}" in this company`);
          if (order.status !== 'shipped') await lifecycle.applyMove(tx, companyId, order, 'shipped', now);
          const existing = await findShipment(tx, companyId, orderId, true);
          const status: ShipmentStatus = opts.awb ? 'booked' : 'pending';
          if (!existing) {
            const adapter: AdapterName = (await findCourierConfig(tx, companyId))?.adapter ?? 'manual';
            const id = newId('shp');
            const url = opts.trackingUrl ?? trackingUrlFor(adapter, opts.awb ?? null);
            await insertShipment(tx, companyId, { id, orderId, adapter, courier: opts.courier ?? null, awb: opts.awb ?? null, status, trackingUrl: url });
            await insertShipmentEvent(tx, companyId, { id: newId('sev'), shipmentId: id, status, source: 'cli', note: 'entered by staff' });
            if (status !== 'pending') await recordOrderEvent(tx, companyId, 'shipment.updated', orderId, now);
          } else if (opts.awb || opts.courier || opts.trackingUrl) {
            const awb = opts.awb ?? existing.awb;
            const booked = existing.status === 'pending' && awb;
            await updateShipment(tx, companyId, existing.id, {
              status: existing.status === 'pending' && awb ? 'booked' : existing.status,
              courier: opts.courier ?? existing.courier,
              awb,
              trackingUrl: opts.trackingUrl ?? existing.tracking_url ?? trackingUrlFor(existing.adapter, awb),
              deliveredAt: existing.delivered_at,
            });
            if (booked || (opts.awb !== undefined && opts.awb !== existing.awb)) await recordOrderEvent(tx, companyId, 'shipment.updated', orderId, now);
          }
        })
        .catch((err) => {
          if ((err as { code?: string }).code === '23505')
            throw new AppError('validation_failed', `AWB ${opts.awb} is already used by another shipment of this company`);
          throw err;
        });
      return views.view(companyId, orderId);
    },

    /**
     * A tracking update (courier callback, CLI, or a worker polling the courier), safe to repeat and to
     * receive out of order. Under the order's row lock: a status the shipment may move to (SHIPMENT_MOVES)
     * becomes current, records the event and sets delivered_at; a parcel that has left us ships the order
     * (stock converted, invoice issued) and a delivered one delivers it. A repeat changes nothing; a status
     * behind the current one is recorded as history only (refused for staff, who typed it). `codCollected`
     * (true = all that was owed) sets the delivery's cash as one payment per shipment, never added twice.
     * A delivery for a cancelled (or draft) order is held for staff (`orders attention`): no invoice, no
     * payment, the shipment unchanged; a courier is told so, staff are refused.
     */
    async track(
      companyId: string,
      target: { reference?: string; awb?: string },
      status: ShipmentStatus,
      opts: { source: TrackSource; codCollected?: boolean | Decimal; note?: string | null } = { source: 'cli' },
    ) {
      if (!SHIPMENT_STATUSES.includes(status)) throw validationError([{ path: 'status', message: `must be one of ${SHIPMENT_STATUSES.join(', ')}` }]);
      const orderId = target.awb
        ? await findOrderIdByAwb(db, companyId, target.awb)
        : target.reference
          ? await findOrderIdForStaff(db, companyId, target.reference)
          : undefined;
      // A courier's callback names the order by our reference or the seller's (which may hold a phone): not repeated.
      if (!orderId) throw notFound(target.awb ? `no shipment with AWB "${target.awb}" in this company` : 'no order with this reference in this company');
      // Staff's own updates (stored with source 'cli') are refused when they do not apply; couriers' are recorded or held.
      const byStaff = opts.source === 'cli';
      const now = clock();
      const cod = opts.codCollected === false || opts.codCollected === undefined ? undefined : opts.codCollected;
      const outcome = await db.tx(async (tx): Promise<TrackOutcome> => {
        const order = (await lockOrder(tx, companyId, orderId))!;
        let shipment = await findShipment(tx, companyId, orderId, true);
        if (!shipment) {
          if (!byStaff) throw notFound(`order ${order.order_number} has no shipment`);
          await insertShipment(tx, companyId, { id: newId('shp'), orderId, adapter: 'manual', courier: null, awb: null, status: 'pending', trackingUrl: null });
          shipment = (await findShipment(tx, companyId, orderId, true))!;
        }
        const move = shipmentMove(shipment.status, status);
        const note = opts.note ?? null;

        if (status === 'delivered' && move !== 'stale' && DELIVERY_HELD_FOR_STAFF[order.status]) {
          const cash = cod === undefined ? '' : cod === true ? ', cash collected' : `, cash collected ${money(cod)}`;
          const reason = `courier reported the parcel delivered${cash}, but order ${order.order_number} is ${order.status}: no invoice issued and no payment recorded; staff decide (refund, return or re-open)`;
          if (byStaff) throw new AppError('validation_failed', `order ${order.order_number} is ${order.status}; a delivery is not recorded for it`);
          const fresh = await insertCourierHold(tx, companyId, {
            id: newId('hld'),
            orderId,
            shipmentId: shipment.id,
            status,
            codCollected: cod === undefined ? null : cod === true ? 'true' : money(cod),
            source: opts.source,
            reason,
          });
          if (fresh)
            await insertShipmentEvent(tx, companyId, {
              id: newId('sev'),
              shipmentId: shipment.id,
              status,
              source: opts.source,
              note: withNote(`held for staff: order is ${order.status}`, note),
            });
          return { result: 'held', message: reason };
        }
        if (move === 'stale') {
          const allowed = SHIPMENT_MOVES[shipment.status];
          const why = `shipment of ${order.order_number} is already ${shipment.status}; it cannot become ${status}`;
          if (byStaff) throw new AppError('validation_failed', why + (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (no further moves)'));
          await insertShipmentEvent(tx, companyId, {
            id: newId('sev'),
            shipmentId: shipment.id,
            status,
            source: opts.source,
            note: withNote(`not applied: shipment is already ${shipment.status}`, note),
          });
          return { result: 'not_applied', message: `${why}; recorded as history only` };
        }
        let changed = false;
        if (move === 'move') {
          await recordShipmentStatus(tx, companyId, shipment.id, shipment, status, opts.source, note, now);
          await recordOrderEvent(tx, companyId, 'shipment.updated', orderId, now);
          changed = true;
        }
        if (LEFT_US[status] && READY_TO_SHIP[order.status]) {
          await lifecycle.applyMove(tx, companyId, order, 'shipped', now);
          changed = true;
        }
        if (status === 'delivered' && order.status === 'shipped') {
          await lifecycle.applyMove(tx, companyId, order, 'delivered', now);
          changed = true;
        }
        if (status === 'delivered' && cod !== undefined && order.payment === 'cod') {
          const invoice = await issueInvoiceTx(tx, companyId, order, now, config.INVOICE_DUE_DAYS);
          if ((await setDeliveryCashTx(tx, companyId, invoice.id, shipment.id, cod, shipment.awb, now)).changed) changed = true;
        }
        return changed
          ? { result: 'applied', message: `shipment is ${status}` }
          : { result: 'repeated', message: `already recorded: shipment is ${status}; nothing changed` };
      });
      return { ...(await views.view(companyId, orderId)), update: outcome };
    },

    /** orders attention: courier updates held for staff and bookings that failed, oldest first. */
    listAttention(companyId?: string) {
      return findAttention(db, companyId);
    },

    /** attention resolve <hold id>: staff have dealt with a held courier update (what they did is kept). */
    async resolveHold(companyId: string, holdId: string, resolution: string) {
      if (!resolution.trim()) throw validationError([{ path: 'resolution', message: 'say what was done' }]);
      if (!(await resolveCourierHold(db, companyId, holdId, resolution.trim().slice(0, 500)))) throw notFound(`no open hold "${holdId}" in this company`);
      return { id: holdId, resolved: true, resolution: resolution.trim().slice(0, 500) };
    },
  };
}

export type ShippingService = ReturnType<typeof createShippingService>;
