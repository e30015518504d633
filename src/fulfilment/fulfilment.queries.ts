import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';
import { adapterName, type AdapterName, type CourierConfig, type ShipmentStatus } from '../couriers/index.js';
import {
  columnList,
  courierConfigs,
  orderLines,
  orders,
  shipments,
  type CourierConfigRow,
  type CourierHoldRow,
  type CustomerRow,
  type EventRow,
  type JobRow,
  type OrderLineRow,
  type OrderRow,
  type ShipmentRow,
} from '../db/schema/index.js';
import { newId } from '../lib/ids.js';
import type { DeliveryAddress } from '../contract/orders.js';

const ORDER_FIELDS = [
  'id',
  'order_number',
  'status',
  'payment',
  'payment_reference',
  'amount',
  'delivery_address',
  'location_id',
  'created_at',
  'customer_id',
  'cod_confirmation',
] as const;
/** The order columns fulfilment reads (under the row lock or not). */
export type LockedOrder = Pick<OrderRow, (typeof ORDER_FIELDS)[number]>;
const ORDER_COLS = columnList(orders, ORDER_FIELDS);

/** Staff name an order by number, id or external_reference; drafts included. */
export async function findOrderIdForStaff(db: Db, companyId: string, reference: string): Promise<string | undefined> {
  const rows = await db.query<Pick<OrderRow, 'id'>>(sql`
    SELECT id FROM orders WHERE company_id = ${companyId}
      AND (order_number = ${reference} OR id = ${reference} OR external_reference = ${reference})
    ORDER BY CASE WHEN order_number = ${reference} THEN 0 WHEN id = ${reference} THEN 1 ELSE 2 END LIMIT 1`);
  return rows[0]?.id;
}

/** The order row under FOR UPDATE: every move of one order is serialised on it. */
export async function lockOrder(tx: Db, companyId: string, orderId: string): Promise<LockedOrder | undefined> {
  const rows = await tx.query<LockedOrder>(sql`SELECT ${ORDER_COLS} FROM orders WHERE company_id = ${companyId} AND id = ${orderId} FOR UPDATE`);
  return rows[0];
}

export async function readOrder(db: Db, companyId: string, orderId: string): Promise<LockedOrder | undefined> {
  const rows = await db.query<LockedOrder>(sql`SELECT ${ORDER_COLS} FROM orders WHERE company_id = ${companyId} AND id = ${orderId}`);
  return rows[0];
}

export async function setOrderStatus(tx: Db, companyId: string, orderId: string, status: string): Promise<void> {
  await tx.query(sql`UPDATE orders SET status = ${status}, updated_at = now() WHERE company_id = ${companyId} AND id = ${orderId}`);
}

/** Draft -> confirmed: the order now ships from this location. */
export async function setOrderLocation(tx: Db, companyId: string, orderId: string, locationId: string): Promise<void> {
  await tx.query(sql`UPDATE orders SET location_id = ${locationId} WHERE company_id = ${companyId} AND id = ${orderId}`);
}

export async function setOrderAddress(tx: Db, companyId: string, orderId: string, address: DeliveryAddress): Promise<void> {
  await tx.query(
    sql`UPDATE orders SET delivery_address = ${JSON.stringify(address)}::jsonb, updated_at = now() WHERE company_id = ${companyId} AND id = ${orderId}`,
  );
}

const SHIPMENT_FIELDS = ['id', 'order_id', 'adapter', 'courier', 'awb', 'status', 'tracking_url', 'delivered_at'] as const;
/** The shipment columns fulfilment reads. */
export type OrderShipment = Pick<ShipmentRow, (typeof SHIPMENT_FIELDS)[number]>;
const SHIPMENT_COLS = columnList(shipments, SHIPMENT_FIELDS);

export async function findShipment(db: Db, companyId: string, orderId: string, lock = false): Promise<OrderShipment | undefined> {
  const rows = await db.query<OrderShipment>(
    lock
      ? sql`SELECT ${SHIPMENT_COLS} FROM shipments WHERE company_id = ${companyId} AND order_id = ${orderId} FOR UPDATE`
      : sql`SELECT ${SHIPMENT_COLS} FROM shipments WHERE company_id = ${companyId} AND order_id = ${orderId}`,
  );
  return rows[0];
}

export async function findOrderIdByAwb(db: Db, companyId: string, awb: string): Promise<string | undefined> {
  const rows = await db.query<Pick<ShipmentRow, 'order_id'>>(sql`SELECT order_id FROM shipments WHERE company_id = ${companyId} AND awb = ${awb}`);
  return rows[0]?.order_id;
}

export interface NewShipment {
  id: string;
  orderId: string;
  adapter: AdapterName;
  courier: string | null;
  awb: string | null;
  status: ShipmentStatus;
  trackingUrl: string | null;
  courierOrderId?: string | null;
  courierShipmentId?: string | null;
}

/** Inserts the order's one shipment; false when it already has one. */
export async function insertShipment(tx: Db, companyId: string, s: NewShipment): Promise<boolean> {
  const rows = await tx.query(sql`
    INSERT INTO shipments (company_id, id, order_id, adapter, courier, awb, status, tracking_url, courier_order_id, courier_shipment_id)
    VALUES (${companyId}, ${s.id}, ${s.orderId}, ${s.adapter}, ${s.courier}, ${s.awb}, ${s.status}, ${s.trackingUrl}, ${s.courierOrderId ?? null}, ${s.courierShipmentId ?? null})
    ON CONFLICT (company_id, order_id) DO NOTHING RETURNING id`);
  return rows.length === 1;
}

export async function updateShipment(
  tx: Db,
  companyId: string,
  shipmentId: string,
  patch: { status: ShipmentStatus; courier: string | null; awb: string | null; trackingUrl: string | null; deliveredAt: Date | null },
): Promise<void> {
  await tx.query(sql`
    UPDATE shipments SET status = ${patch.status}, courier = ${patch.courier}, awb = ${patch.awb}, tracking_url = ${patch.trackingUrl},
      delivered_at = ${patch.deliveredAt ? patch.deliveredAt.toISOString() : null}::timestamptz, updated_at = now()
    WHERE company_id = ${companyId} AND id = ${shipmentId}`);
}

export type TrackSource = 'worker' | 'callback' | 'cli';

/** The shipment becomes `status` (delivered_at set on first delivery) and the event is recorded. */
export async function recordShipmentStatus(
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

export async function insertShipmentEvent(
  tx: Db,
  companyId: string,
  e: { id: string; shipmentId: string; status: string; source: TrackSource; note?: string | null },
): Promise<void> {
  await tx.query(sql`
    INSERT INTO shipment_events (company_id, id, shipment_id, status, source, note)
    VALUES (${companyId}, ${e.id}, ${e.shipmentId}, ${e.status}, ${e.source}, ${e.note ?? null})`);
}

const CONFIG_FIELDS = ['adapter', 'base_url', 'api_email', 'api_password', 'pickup_location', 'callback_secret'] as const;
const CONFIG_COLS = columnList(courierConfigs, CONFIG_FIELDS);

export async function findCourierConfig(db: Db, companyId: string): Promise<(CourierConfig & { callbackSecret: string }) | undefined> {
  const rows = await db.query<Pick<CourierConfigRow, (typeof CONFIG_FIELDS)[number]>>(
    sql`SELECT ${CONFIG_COLS} FROM courier_configs WHERE company_id = ${companyId}`,
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    adapter: adapterName(r.adapter),
    baseUrl: r.base_url,
    apiEmail: r.api_email,
    apiPassword: r.api_password,
    pickupLocation: r.pickup_location,
    callbackSecret: r.callback_secret,
  };
}

const BOOKING_LINE_FIELDS = ['sku', 'name', 'quantity', 'unit_price', 'variant_id'] as const;
export type BookingLine = Pick<OrderLineRow, (typeof BOOKING_LINE_FIELDS)[number]>;
const BOOKING_LINE_COLS = columnList(orderLines, BOOKING_LINE_FIELDS);

export async function findBookingLines(db: Db, companyId: string, orderId: string): Promise<BookingLine[]> {
  return db.query<BookingLine>(sql`SELECT ${BOOKING_LINE_COLS} FROM order_lines WHERE company_id = ${companyId} AND order_id = ${orderId} ORDER BY line_no`);
}

export async function findCustomerContact(db: Db, companyId: string, customerId: string): Promise<Pick<CustomerRow, 'name' | 'phone_e164'>> {
  const rows = await db.query<Pick<CustomerRow, 'name' | 'phone_e164'>>(
    sql`SELECT name, phone_e164 FROM customers WHERE company_id = ${companyId} AND id = ${customerId}`,
  );
  return rows[0];
}

/** The parts of an order staff see beside its status (`order show`): its reference, customer and lines. */
export interface OrderParticulars {
  external_reference: OrderRow['external_reference'];
  created_at: OrderRow['created_at'];
  customer: Pick<CustomerRow, 'name' | 'phone_e164' | 'email'>;
  lines: Pick<OrderLineRow, 'sku' | 'name' | 'quantity' | 'unit_price' | 'line_total' | 'tax_rate'>[];
}

export async function findOrderParticulars(db: Db, companyId: string, orderId: string): Promise<OrderParticulars | undefined> {
  const rows = await db.query<OrderParticulars>(sql`
    SELECT o.external_reference, o.created_at,
           json_build_object('name', c.name, 'phone_e164', c.phone_e164, 'email', c.email) AS customer,
           (SELECT coalesce(json_agg(json_build_object('sku', l.sku, 'name', l.name, 'quantity', l.quantity::text, 'unit_price', l.unit_price::text,
                                                       'line_total', l.line_total::text, 'tax_rate', l.tax_rate::text) ORDER BY l.line_no), '[]')
              FROM order_lines l WHERE l.company_id = ${companyId} AND l.order_id = o.id) AS lines
      FROM orders o JOIN customers c ON c.company_id = ${companyId} AND c.id = o.customer_id
     WHERE o.company_id = ${companyId} AND o.id = ${orderId}`);
  return rows[0];
}

/** One change of an order as its event recorded it (the outbox keeps every order event, delivered or not). */
export type OrderHistoryRow = Pick<EventRow, 'type' | 'created_at'> & {
  order_status: string | null;
  shipment_status: string | null;
  payment_status: string | null;
};

export async function findOrderHistory(db: Db, companyId: string, orderId: string): Promise<OrderHistoryRow[]> {
  return db.query<OrderHistoryRow>(sql`
    SELECT type, created_at, data->>'order_status' AS order_status, data->'shipment'->>'status' AS shipment_status,
           data->'invoice'->>'payment_status' AS payment_status
      FROM events WHERE company_id = ${companyId} AND subject_id = ${orderId} ORDER BY seq`);
}

/** Holds a courier update for staff; false when the same update is already held (open) for this shipment. */
export async function insertCourierHold(
  tx: Db,
  companyId: string,
  h: { id: string; orderId: string; shipmentId: string; status: ShipmentStatus; codCollected: string | null; source: TrackSource; reason: string },
): Promise<boolean> {
  const rows = await tx.query(sql`
    INSERT INTO courier_holds (company_id, id, order_id, shipment_id, status, cod_collected, source, reason)
    VALUES (${companyId}, ${h.id}, ${h.orderId}, ${h.shipmentId}, ${h.status}, ${h.codCollected}, ${h.source}, ${h.reason})
    ON CONFLICT (company_id, shipment_id, status) WHERE resolved_at IS NULL DO NOTHING RETURNING id`);
  return rows.length === 1;
}

/** One line of a UNION over holds and failed jobs (computed shape; columns typed from the holds' side, the jobs' side is alike). */
export type AttentionRow = {
  kind: 'courier_update_held' | 'booking_failed' | 'payment_needs_attention' | 'cod_confirmation_overdue';
  id: CourierHoldRow['id'];
  company_id: CourierHoldRow['company_id'];
  order_number: OrderRow['order_number'] | null;
  order_status: OrderRow['status'] | null;
  reason: CourierHoldRow['reason'] | JobRow['last_error'];
  since: CourierHoldRow['created_at'];
};

/**
 * What staff must act on, oldest first: courier updates held for them, bookings that failed for good, money that
 * paid for nothing (a capture for a checkout canceled, expired, changed or of another amount: to refund), once per
 * payment (its id; a capture and its order.paid are one payment), and COD confirmations pending past their time limit
 * (a company that leaves them to staff; `order cod-confirm` settles one).
 */
export async function findAttention(db: Db, companyId: string | undefined): Promise<AttentionRow[]> {
  // One company: filtered by company_id in both branches (a router statement under Citus). Every company: a named cross-company read.
  const held = companyId !== undefined ? sql`AND h.company_id = ${companyId}` : sql``;
  const failed = companyId !== undefined ? sql`AND j.company_id = ${companyId}` : sql``;
  const paid = companyId !== undefined ? sql`AND e.company_id = ${companyId}` : sql``;
  const overdue = companyId !== undefined ? sql`AND o.company_id = ${companyId}` : sql``;
  const query = sql`
    SELECT * FROM (
      SELECT 'courier_update_held' AS kind, h.id, h.company_id, o.order_number, o.status AS order_status, h.reason, h.created_at AS since
      FROM courier_holds h JOIN orders o ON o.company_id = h.company_id AND o.id = h.order_id
      WHERE h.resolved_at IS NULL ${held}
      UNION ALL
      SELECT 'booking_failed', j.id, j.company_id, o.order_number, o.status, j.last_error, j.updated_at
      FROM jobs j LEFT JOIN orders o ON o.company_id = j.company_id AND o.id = j.order_id
      WHERE j.status = 'failed' ${failed}
      UNION ALL
      SELECT 'payment_needs_attention', p.id, p.company_id, NULL, NULL, p.note, p.created_at FROM (
        SELECT DISTINCT ON (e.company_id, e.provider, coalesce(e.payment_id, e.event_id))
               coalesce(e.payment_id, e.event_id) AS id, e.company_id, e.note, e.created_at
          FROM payment_events e
         WHERE e.status = 'needs_attention' ${paid}
         ORDER BY e.company_id, e.provider, coalesce(e.payment_id, e.event_id), e.created_at) p
      UNION ALL
      SELECT 'cod_confirmation_overdue', o.id, o.company_id, o.order_number, o.status,
             'the buyer has not confirmed this COD order in time; confirm or decline it (order cod-confirm)', o.cod_confirmation_due_at
      FROM orders o
      WHERE o.cod_confirmation = 'pending' AND o.cod_confirmation_due_at <= now() ${overdue}
    ) a ORDER BY since LIMIT 500`;
  return companyId !== undefined ? db.query<AttentionRow>(query) : crossCompany<AttentionRow>(db, 'admin.attention', query);
}

/** Marks an open hold handled, with what staff did; false when there is no such open hold. */
export async function resolveCourierHold(db: Db, companyId: string, holdId: string, resolution: string): Promise<boolean> {
  const rows = await db.query(sql`
    UPDATE courier_holds SET resolved_at = now(), resolution = ${resolution}
    WHERE company_id = ${companyId} AND id = ${holdId} AND resolved_at IS NULL RETURNING id`);
  return rows.length === 1;
}
