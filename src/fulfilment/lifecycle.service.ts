import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { SHIPMENT_MOVES, SHIPMENT_STATUSES, shipmentMove, trackingUrlFor, type AdapterName, type ShipmentStatus } from '../couriers/index.js';
import { recogniseCustomer } from '../customers/customers.service.js';
import { AppError, notFound, validationError } from '../contract/errors.js';
import { issuesToDetails } from '../contract/validation.js';
import { newId } from '../lib/ids.js';
import { Decimal, money } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { companyAutoCourierBooking, findShipFromLocation, findVariantsByIdentifiers, insertCourierBookingJob, insertOrderLines } from '../orders/orders.queries.js';
import { deliveryAddressInput, placeOrderBody } from '../contract/orders.js';
import { deliveryAddress, resolveLines } from '../orders/orders.service.js';
import { convertReservations, releaseReservations, reserveStock, returnShippedStock } from '../orders/reservations.js';
import { orderStatusLabel } from '../contract/status-labels.js';
import { orderNumbersFor, type OrderNumbers } from '../orders/order-numbers.js';
import { shipmentOut } from '../contract/order-output.js';
import {
  findBookingLines,
  findCourierConfig,
  findOrderIdByAwb,
  findOrderIdForStaff,
  findAttention,
  findShipment,
  insertCourierHold,
  insertShipment,
  insertShipmentEvent,
  lockOrder,
  readOrder,
  setOrderStatus,
  resolveCourierHold,
  updateShipment,
  type LockedOrder,
  type TrackSource,
} from './fulfilment.queries.js';
import { findInvoice, invoiceOut, issueInvoiceTx, recordPaymentTx, setDeliveryCashTx } from './invoices.js';

/** Order moves staff (and couriers' tracking) may make; anything else is refused. */
export const ORDER_MOVES: Record<string, readonly string[]> = {
  draft: ['confirmed', 'cancelled'],
  confirmed: ['packed', 'shipped', 'cancelled'],
  packed: ['shipped', 'cancelled'],
  shipped: ['delivered', 'returned'],
  delivered: ['returned'],
  cancelled: [],
  returned: [],
};
export const ORDER_TARGETS = ['confirmed', 'packed', 'shipped', 'delivered', 'cancelled', 'returned'] as const;
export type OrderTarget = (typeof ORDER_TARGETS)[number];

/** Orders a courier's delivery cannot complete: the update is held for staff instead. */
const HOLD_DELIVERY = new Set(['cancelled', 'draft']);

/** What a tracking update did: applied, a repeat (nothing changed), history only, or held for staff. */
export type TrackOutcome = { result: 'applied' | 'repeated' | 'not_applied' | 'held'; message: string };

const withNote = (what: string, note: string | null) => (note ? `${what}; ${note}` : what);
/** Courier states meaning the parcel has left us: the order counts as shipped. */
const LEFT_US = new Set<ShipmentStatus>(['picked_up', 'in_transit', 'out_for_delivery', 'delivered']);

/** A draft as staff write it: the POST /orders body, external_reference optional. */
export const draftOrderBody = placeOrderBody.extend({ external_reference: z.string().trim().min(1).max(100).nullish() });
export type DraftOrderBody = z.output<typeof draftOrderBody>;

export type FulfilmentDeps = { db: Db; config: Pick<Config, 'INVOICE_DUE_DAYS'>; clock?: () => Date; orderNumbers?: OrderNumbers };

export function createFulfilmentService({ db, config, clock = () => new Date(), orderNumbers = orderNumbersFor(db) }: FulfilmentDeps) {
  async function orderIdOf(companyId: string, reference: string): Promise<string> {
    const id = await findOrderIdForStaff(db, companyId, reference);
    if (!id) throw notFound(`no order "${reference}" in this company`);
    return id;
  }

  /** One move with its stock effects, inside the caller's transaction, the order row already locked. */
  async function applyMove(tx: Db, companyId: string, order: LockedOrder, to: OrderTarget, now: Date): Promise<void> {
    if (!(ORDER_MOVES[order.status] ?? []).includes(to)) {
      const allowed = ORDER_MOVES[order.status] ?? [];
      throw new AppError(
        'validation_failed',
        `order ${order.order_number} is ${order.status}; it cannot move to ${to}` + (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (no further moves)'),
        [{ path: 'status', message: `${order.status} -> ${to} is not allowed` }],
      );
    }
    if (to === 'confirmed') await reserveDraft(tx, companyId, order);
    else if (to === 'cancelled') {
      await releaseReservations(tx, { companyId, orderId: order.id });
      const shipment = await findShipment(tx, companyId, order.id, true);
      if (shipment?.status === 'pending') await moveShipment(tx, companyId, shipment.id, shipment, 'cancelled', 'cli', 'order cancelled', now);
    } else if (to === 'shipped') {
      await convertReservations(tx, { companyId, orderId: order.id });
      await issueInvoiceTx(tx, companyId, order, now, config.INVOICE_DUE_DAYS);
    } else if (to === 'returned') await returnShippedStock(tx, { companyId, orderId: order.id });
    await setOrderStatus(tx, companyId, order.id, to);
    order.status = to;
  }

  /** Draft -> confirmed: stock reserved under the same rules as POST /orders (409 short, 422 no location). */
  async function reserveDraft(tx: Db, companyId: string, order: LockedOrder): Promise<void> {
    const locationId = await findShipFromLocation(tx, companyId);
    if (!locationId) throw new AppError('unprocessable', 'the company has no active stock location to ship orders from; the draft stays a draft');
    const lines = await findBookingLines(tx, companyId, order.id);
    await reserveStock(tx, { companyId, locationId, orderId: order.id, lines: lines.map((l) => ({ variantId: l.variant_id, quantity: new Decimal(l.quantity), productId: l.sku })) });
    await tx.query(sql`UPDATE orders SET location_id = ${locationId} WHERE company_id = ${companyId} AND id = ${order.id}`);
    await enqueueIfEligible(tx, companyId, order);
  }

  /** The spec's rule: a booking is due when automatic booking is on and the address is usable. */
  async function enqueueIfEligible(tx: Db, companyId: string, order: Pick<LockedOrder, 'id' | 'delivery_address'>): Promise<boolean> {
    if (!order.delivery_address || !(await companyAutoCourierBooking(tx, companyId))) return false;
    if (await findShipment(tx, companyId, order.id)) return false;
    await insertCourierBookingJob(tx, companyId, newId('job'), order.id);
    return true;
  }

  async function moveShipment(
    tx: Db,
    companyId: string,
    shipmentId: string,
    current: { courier: string | null; awb: string | null; tracking_url: string | null; delivered_at: Date | null },
    status: ShipmentStatus,
    source: TrackSource,
    note: string | null,
    now: Date,
  ): Promise<void> {
    const deliveredAt = status === 'delivered' ? (current.delivered_at ?? now) : current.delivered_at;
    await updateShipment(tx, companyId, shipmentId, { status, courier: current.courier, awb: current.awb, trackingUrl: current.tracking_url, deliveredAt });
    await insertShipmentEvent(tx, companyId, { id: newId('sev'), shipmentId, status, source, note });
  }

  /** What staff see after a command: status, shipment and invoice in the lookup's shapes. */
  async function view(companyId: string, orderId: string) {
    const o = await readOrder(db, companyId, orderId);
    if (!o) throw notFound(`order ${orderId} vanished`);
    const s = await findShipment(db, companyId, orderId);
    const i = await findInvoice(db, companyId, orderId);
    return {
      order_id: o.id,
      order_number: o.order_number,
      order_status: o.status,
      status_label: orderStatusLabel(o.status),
      amount: money(o.amount),
      payment: o.payment,
      delivery_address: o.delivery_address,
      shipment: s ? shipmentOut(s) : null,
      invoice: i ? invoiceOut(i, clock()) : null,
    };
  }

  return {
    view: async (companyId: string, reference: string) => view(companyId, await orderIdOf(companyId, reference)),

    /** order move <ref> <status>: one transaction under the order's row lock. */
    async move(companyId: string, reference: string, to: OrderTarget) {
      const orderId = await orderIdOf(companyId, reference);
      await db.tx(async (tx) => {
        const order = await lockOrder(tx, companyId, orderId);
        if (!order) throw notFound(`no order "${reference}" in this company`);
        await applyMove(tx, companyId, order, to, clock());
      });
      return view(companyId, orderId);
    },

    /** A staff draft: no reservation, invisible to the API until confirmed. Prices copied from the catalogue now. */
    async createDraft(companyId: string, body: DraftOrderBody) {
      const phone = normalizePhone(body.customer.phone);
      if (!phone.ok) throw validationError([{ path: 'customer.phone', message: phone.message }]);
      const given = body.delivery_address ? deliveryAddress(body.delivery_address) : null;
      const identifiers = [...new Set(body.items.map((i) => i.product_id))];
      const lines = resolveLines(body.items, await findVariantsByIdentifiers(db, companyId, identifiers));
      const amount = lines.reduce((sum, l) => sum.plus(l.lineTotal), new Decimal(0));
      const id = newId('ord');
      const orderNumber = await orderNumbers.next(companyId); // before the transaction: see OrderNumbers.next
      await db.tx(async (tx) => {
        const customer = await recogniseCustomer(tx, companyId, { name: body.customer.name, phoneE164: phone.e164, email: body.customer.email || null, address: given });
        const rows = await tx.query(sql`
          INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, payment_reference, notes, amount, delivery_address)
          VALUES (${companyId}, ${id}, ${orderNumber}, ${body.external_reference ?? null}, ${customer.id}, 'draft', ${body.payment},
                  ${body.payment_reference || null}, ${body.notes || null}, ${money(amount)}::numeric, ${given ? JSON.stringify(given) : null}::jsonb)
          ON CONFLICT (company_id, external_reference) DO NOTHING RETURNING id`);
        if (rows.length === 0) throw validationError([{ path: 'external_reference', message: 'already used by another order of this company' }]);
        await insertOrderLines(tx, companyId, id, lines);
      });
      return view(companyId, id);
    },

    confirm(companyId: string, reference: string) {
      return this.move(companyId, reference, 'confirmed');
    },

    /** Sets the delivery address of an order not yet handed to a courier; it may then be booked automatically. */
    async setAddress(companyId: string, reference: string, input: unknown) {
      const parsed = deliveryAddressInput.safeParse(input);
      if (!parsed.success) throw validationError(issuesToDetails(parsed.error.issues, '', ['delivery_address']));
      const address = deliveryAddress(parsed.data);
      const orderId = await orderIdOf(companyId, reference);
      const enqueued = await db.tx(async (tx) => {
        const order = await lockOrder(tx, companyId, orderId);
        if (!order) throw notFound(`no order "${reference}" in this company`);
        if (!['draft', 'confirmed', 'packed'].includes(order.status)) throw new AppError('validation_failed', `order ${order.order_number} is ${order.status}; its address can no longer change`);
        const shipment = await findShipment(tx, companyId, orderId);
        if (shipment && shipment.status !== 'pending') throw new AppError('validation_failed', `order ${order.order_number} already has a booked shipment (${shipment.awb ?? 'no AWB'}); cancel it with the courier first`);
        await tx.query(sql`UPDATE orders SET delivery_address = ${JSON.stringify(address)}::jsonb, updated_at = now() WHERE company_id = ${companyId} AND id = ${orderId}`);
        order.delivery_address = address;
        return order.status === 'draft' ? false : enqueueIfEligible(tx, companyId, order);
      });
      return { ...(await view(companyId, orderId)), booking_enqueued: enqueued };
    },

    /** Staff ask for a courier booking now (also when automatic booking is off). */
    async requestBooking(companyId: string, reference: string) {
      const orderId = await orderIdOf(companyId, reference);
      await db.tx(async (tx) => {
        const order = await lockOrder(tx, companyId, orderId);
        if (!order || !['confirmed', 'packed'].includes(order.status)) throw new AppError('validation_failed', `order ${reference} must be confirmed or packed to book a courier`);
        if (!order.delivery_address) throw new AppError('validation_failed', `order ${order.order_number} has no delivery address; add one with "order address"`);
        if (await findShipment(tx, companyId, orderId)) throw new AppError('validation_failed', `order ${order.order_number} already has a shipment`);
        await insertCourierBookingJob(tx, companyId, newId('job'), orderId);
      });
      return view(companyId, orderId);
    },

    /** Manual courier: staff record AWB and courier; the order ships (stock converted, invoice issued). */
    async ship(companyId: string, reference: string, opts: { awb?: string; courier?: string; trackingUrl?: string }) {
      const orderId = await orderIdOf(companyId, reference);
      const now = clock();
      await db.tx(async (tx) => {
        const order = await lockOrder(tx, companyId, orderId);
        if (!order) throw notFound(`no order "${reference}" in this company`);
        if (order.status !== 'shipped') await applyMove(tx, companyId, order, 'shipped', now);
        const existing = await findShipment(tx, companyId, orderId, true);
        const status: ShipmentStatus = opts.awb ? 'booked' : 'pending';
        if (!existing) {
          const adapter: AdapterName = (await findCourierConfig(tx, companyId))?.adapter ?? 'manual';
          const id = newId('shp');
          const url = opts.trackingUrl ?? trackingUrlFor(adapter, opts.awb ?? null);
          await insertShipment(tx, companyId, { id, orderId, adapter, courier: opts.courier ?? null, awb: opts.awb ?? null, status, trackingUrl: url });
          await insertShipmentEvent(tx, companyId, { id: newId('sev'), shipmentId: id, status, source: 'cli', note: 'entered by staff' });
        } else if (opts.awb || opts.courier || opts.trackingUrl) {
          const awb = opts.awb ?? existing.awb;
          await updateShipment(tx, companyId, existing.id, {
            status: existing.status === 'pending' && awb ? 'booked' : existing.status,
            courier: opts.courier ?? existing.courier,
            awb,
            trackingUrl: opts.trackingUrl ?? existing.tracking_url ?? trackingUrlFor(existing.adapter, awb),
            deliveredAt: existing.delivered_at,
          });
        }
      }).catch((err) => {
        if ((err as { code?: string }).code === '23505') throw new AppError('validation_failed', `AWB ${opts.awb} is already used by another shipment of this company`);
        throw err;
      });
      return view(companyId, orderId);
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
      const orderId = target.awb ? await findOrderIdByAwb(db, companyId, target.awb) : target.reference ? await findOrderIdForStaff(db, companyId, target.reference) : undefined;
      if (!orderId) throw notFound(target.awb ? `no shipment with AWB "${target.awb}" in this company` : `no order "${target.reference}" in this company`);
      const now = clock();
      const cod = opts.codCollected === false || opts.codCollected === undefined ? undefined : opts.codCollected;
      const outcome = await db.tx(async (tx): Promise<TrackOutcome> => {
        const order = (await lockOrder(tx, companyId, orderId))!;
        let shipment = await findShipment(tx, companyId, orderId, true);
        if (!shipment) {
          if (opts.source !== 'cli') throw notFound(`order ${order.order_number} has no shipment`);
          await insertShipment(tx, companyId, { id: newId('shp'), orderId, adapter: 'manual', courier: null, awb: null, status: 'pending', trackingUrl: null });
          shipment = (await findShipment(tx, companyId, orderId, true))!;
        }
        const move = shipmentMove(shipment.status, status);
        const note = opts.note ?? null;

        if (status === 'delivered' && move !== 'stale' && HOLD_DELIVERY.has(order.status)) {
          const cash = cod === undefined ? '' : cod === true ? ', cash collected' : `, cash collected ${money(cod)}`;
          const reason = `courier reported the parcel delivered${cash}, but order ${order.order_number} is ${order.status}: no invoice issued and no payment recorded; staff decide (refund, return or re-open)`;
          if (opts.source === 'cli') throw new AppError('validation_failed', `order ${order.order_number} is ${order.status}; a delivery is not recorded for it`);
          const fresh = await insertCourierHold(tx, companyId, {
            id: newId('hld'),
            orderId,
            shipmentId: shipment.id,
            status,
            codCollected: cod === undefined ? null : cod === true ? 'true' : money(cod),
            source: opts.source,
            reason,
          });
          if (fresh) await insertShipmentEvent(tx, companyId, { id: newId('sev'), shipmentId: shipment.id, status, source: opts.source, note: withNote(`held for staff: order is ${order.status}`, note) });
          return { result: 'held', message: reason };
        }
        if (move === 'stale') {
          const allowed = SHIPMENT_MOVES[shipment.status];
          const why = `shipment of ${order.order_number} is already ${shipment.status}; it cannot become ${status}`;
          if (opts.source === 'cli') throw new AppError('validation_failed', why + (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (no further moves)'));
          await insertShipmentEvent(tx, companyId, { id: newId('sev'), shipmentId: shipment.id, status, source: opts.source, note: withNote(`not applied: shipment is already ${shipment.status}`, note) });
          return { result: 'not_applied', message: `${why}; recorded as history only` };
        }
        let changed = false;
        if (move === 'move') {
          await moveShipment(tx, companyId, shipment.id, shipment, status, opts.source, note, now);
          changed = true;
        }
        if (LEFT_US.has(status) && (order.status === 'confirmed' || order.status === 'packed')) {
          await applyMove(tx, companyId, order, 'shipped', now);
          changed = true;
        }
        if (status === 'delivered' && order.status === 'shipped') {
          await applyMove(tx, companyId, order, 'delivered', now);
          changed = true;
        }
        if (status === 'delivered' && cod !== undefined && order.payment === 'cod') {
          const invoice = await issueInvoiceTx(tx, companyId, order, now, config.INVOICE_DUE_DAYS);
          if ((await setDeliveryCashTx(tx, companyId, invoice.id, shipment.id, cod, shipment.awb, now)).changed) changed = true;
        }
        return changed ? { result: 'applied', message: `shipment is ${status}` } : { result: 'repeated', message: `already recorded: shipment is ${status}; nothing changed` };
      });
      return { ...(await view(companyId, orderId)), update: outcome };
    },

    /** invoice issue <ref>: staff may issue before shipping (not for drafts or cancelled orders). */
    async issueInvoice(companyId: string, reference: string) {
      const orderId = await orderIdOf(companyId, reference);
      await db.tx(async (tx) => {
        const order = (await lockOrder(tx, companyId, orderId))!;
        if (order.status === 'draft' || order.status === 'cancelled') throw new AppError('validation_failed', `order ${order.order_number} is ${order.status}; no invoice is issued for it`);
        await issueInvoiceTx(tx, companyId, order, clock(), config.INVOICE_DUE_DAYS);
      });
      return view(companyId, orderId);
    },

    /** payment record <ref> <amount>: partial payments allowed, never more than is owed. */
    async recordPayment(companyId: string, reference: string, amountText: string, paymentReference: string | null = null) {
      if (!/^\d{1,12}(\.\d{1,2})?$/.test(amountText.trim())) throw validationError([{ path: 'amount', message: 'must be a positive amount with at most 2 decimals, e.g. 250 or 99.50' }]);
      const amount = new Decimal(amountText.trim());
      const orderId = await orderIdOf(companyId, reference);
      await db.tx(async (tx) => {
        await lockOrder(tx, companyId, orderId);
        const invoice = await findInvoice(tx, companyId, orderId);
        if (!invoice) throw new AppError('validation_failed', `order ${reference} has no invoice yet; issue one with "invoice issue" first`);
        await recordPaymentTx(tx, companyId, invoice.id, amount, 'manual', paymentReference, clock());
      });
      return view(companyId, orderId);
    },

    /** courier configure: the adapter and its settings; a callback secret is made on first use (or on rotate) and shown then only. */
    async configureCourier(
      companyId: string,
      input: { adapter: AdapterName; baseUrl?: string | null; email?: string | null; password?: string | null; pickupLocation?: string | null; rotateSecret?: boolean },
    ) {
      if (input.adapter === 'shiprocket') {
        const missing = (['baseUrl', 'email', 'password'] as const).filter((k) => !input[k]);
        const current = await findCourierConfig(db, companyId);
        const still = missing.filter((k) => !(current && { baseUrl: current.baseUrl, email: current.apiEmail, password: current.apiPassword }[k]));
        if (still.length) throw validationError(still.map((k) => ({ path: k, message: 'required for the shiprocket adapter' })));
        if (input.baseUrl && !/^https?:\/\/[^\s]+$/.test(input.baseUrl)) throw validationError([{ path: 'baseUrl', message: 'must be an http(s) URL' }]);
      }
      const secret = randomBytes(32).toString('base64url');
      const rows = await db.query<{ callback_secret: string; created: boolean }>(sql`
        INSERT INTO courier_configs (company_id, adapter, base_url, api_email, api_password, pickup_location, callback_secret)
        VALUES (${companyId}, ${input.adapter}, ${input.baseUrl ?? null}, ${input.email ?? null}, ${input.password ?? null}, ${input.pickupLocation ?? null}, ${secret})
        ON CONFLICT (company_id) DO UPDATE SET
          adapter = excluded.adapter,
          base_url = coalesce(${input.baseUrl ?? null}, courier_configs.base_url),
          api_email = coalesce(${input.email ?? null}, courier_configs.api_email),
          api_password = coalesce(${input.password ?? null}, courier_configs.api_password),
          pickup_location = coalesce(${input.pickupLocation ?? null}, courier_configs.pickup_location),
          callback_secret = CASE WHEN ${input.rotateSecret ?? false} THEN excluded.callback_secret ELSE courier_configs.callback_secret END,
          updated_at = now()
        RETURNING callback_secret, (xmax = 0) AS created`);
      const shown = rows[0].created || input.rotateSecret;
      const cfg = (await findCourierConfig(db, companyId))!;
      return {
        adapter: cfg.adapter,
        base_url: cfg.baseUrl,
        email: cfg.apiEmail,
        password_set: Boolean(cfg.apiPassword),
        pickup_location: cfg.pickupLocation,
        callback_secret: shown ? rows[0].callback_secret : undefined,
      };
    },

    /** The company's callback signing secret, by company id or slug (for the callback route). */
    async callbackSecret(company: string): Promise<{ companyId: string; secret: string } | undefined> {
      const rows = await db.query<{ company_id: string; callback_secret: string }>(sql`
        SELECT c.company_id, c.callback_secret FROM courier_configs c JOIN companies co ON co.id = c.company_id
        WHERE co.id = ${company} OR co.slug = ${company}`);
      return rows[0] ? { companyId: rows[0].company_id, secret: rows[0].callback_secret } : undefined;
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

    async listJobs(opts: { companyId?: string; failed?: boolean }) {
      return db.query<Record<string, unknown>>(sql`
        SELECT j.id, j.company_id, j.kind, o.order_number, j.status, j.attempts, j.run_at, j.last_error, j.updated_at
        FROM jobs j LEFT JOIN orders o ON o.company_id = j.company_id AND o.id = j.order_id
        WHERE (${opts.companyId ?? null}::text IS NULL OR j.company_id = ${opts.companyId ?? null})
          AND (${opts.failed ?? false} = false OR j.status = 'failed')
        ORDER BY j.created_at DESC LIMIT 200`);
    },

    /** jobs retry <id>: a failed job becomes due again with a fresh attempt count. */
    async retryJob(jobId: string) {
      const rows = await db
        .query<{ id: string }>(sql`
          UPDATE jobs SET status = 'pending', attempts = 0, run_at = now(), claimed_by = NULL, updated_at = now()
          WHERE id = ${jobId} AND status = 'failed' RETURNING id`)
        .catch((err) => {
          if ((err as { code?: string }).code === '23505') throw new AppError('validation_failed', `another booking for the same order is already pending`);
          throw err;
        });
      if (!rows[0]) throw notFound(`no failed job "${jobId}"`);
      return (await this.listJobs({})).find((j) => j.id === jobId) ?? { id: jobId, status: 'pending' };
    },
  };
}

export type FulfilmentService = ReturnType<typeof createFulfilmentService>;
