import { sql } from 'drizzle-orm';
import { messagingContextColumns, type WhatsappSettings } from './whatsapp.queries.js';
import type { Db } from '../db/index.js';
import type { TenantReader } from '../keys/key-check.js';
import type { DeliveryAddress } from '../contract/orders.js';
import type { CustomerRow } from '../customers/customers.queries.js';
import { latestConsentsOf, type LatestConsent } from '../customers/consents.queries.js';
import {
  columnList,
  orderLines,
  type CompanyRow,
  type CustomerRow as CustomerRecord,
  type CreditNoteRow,
  type CustomerConsentRow,
  type InvoiceRow,
  type OrderLineRow,
  type OrderRow as OrderRecord,
  type ProductRow,
  type ShipmentRow,
  type StockLocationRow,
  type VariantRow,
} from '../db/schema/index.js';

/** A variant as an order line needs it: its own columns, its product's name and tax rate, and whether both are active. */
export type OrderableVariant = Pick<VariantRow, 'id' | 'sku' | 'barcode' | 'name' | 'selling_price'> & {
  product_name: ProductRow['name'];
  tax_rate: ProductRow['tax_rate'];
  /** its product's selling unit: a counted one is ordered in whole numbers (lib/units.ts) */
  unit: ProductRow['unit'];
  /** v.active AND p.active */
  for_sale: boolean;
};

/** Variants whose SKU, id or barcode is one of `identifiers` (active or not; the caller decides). */
export async function findVariantsByIdentifiers(db: Db, companyId: string, identifiers: string[]): Promise<OrderableVariant[]> {
  return db.query<OrderableVariant>(
    sql`SELECT v.id, v.sku, v.barcode, v.name, p.name AS product_name, v.selling_price, p.tax_rate, p.unit, (v.active AND p.active) AS for_sale
        FROM variants v JOIN products p ON p.company_id = v.company_id AND p.id = v.product_id
        WHERE v.company_id = ${companyId} AND (v.sku = ANY(${sql.param(identifiers)}::text[]) OR v.id = ANY(${sql.param(identifiers)}::text[]) OR v.barcode = ANY(${sql.param(identifiers)}::text[]))`,
    'variants_by_identifiers',
  );
}

/** One row of scalar subqueries and JSON built by the statement (numbers as text, as the runner reads numeric). */
export interface OrderPrelude {
  /** the order already placed with this external_reference, if any */
  existing_order_id: OrderRecord['id'] | null;
  /** the active ship-from location, if any */
  location_id: StockLocationRow['id'] | null;
  auto_courier_booking: CompanyRow['auto_courier_booking'];
  variants: OrderableVariant[];
  /** the customer with this phone, for their address on file */
  customer: CustomerRow | null;
  /** what the order.created event's WhatsApp messages read (whatsapp.queries.ts) */
  whatsapp_settings: WhatsappSettings | null;
  gst_registered: boolean;
}

/**
 * Everything POST /orders reads before it writes, in one round trip: the idempotency check, the ordered
 * variants, the ship-from location, the company's booking flag and the customer. Numbers travel as text. It is the
 * request's first statement: the reader settles the key with it, before anything is answered or written.
 */
export async function orderPrelude(reader: TenantReader, externalReference: string, identifiers: string[], phoneE164: string): Promise<OrderPrelude> {
  // The identifiers as an array the planner cannot size: a known one made PostgreSQL re-plan this statement on every
  // order (0.18 ms of planning for 0.02 ms of work), as it costs the plan for one identifier below its generic plan.
  const { companyId } = reader;
  const wanted = sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(identifiers)}::jsonb))`;
  const prelude = await reader.one<OrderPrelude>(
    sql`SELECT
          (SELECT id FROM orders WHERE company_id = ${companyId} AND external_reference = ${externalReference}) AS existing_order_id,
          (SELECT id FROM stock_locations WHERE company_id = ${companyId} AND ships_orders AND active) AS location_id,
          coalesce((SELECT auto_courier_booking FROM companies WHERE id = ${companyId}), false) AS auto_courier_booking,
          (SELECT coalesce(json_agg(json_build_object('id', v.id, 'sku', v.sku, 'barcode', v.barcode, 'name', v.name, 'product_name', p.name,
                    'selling_price', v.selling_price::text, 'tax_rate', p.tax_rate::text, 'unit', p.unit, 'for_sale', v.active AND p.active)), '[]'::json)
           FROM variants v JOIN products p ON p.company_id = v.company_id AND p.id = v.product_id
           WHERE v.company_id = ${companyId}
             AND (v.sku = ANY(${wanted}) OR v.id = ANY(${wanted}) OR v.barcode = ANY(${wanted}))) AS variants,
          (SELECT row_to_json(c) FROM customers c WHERE c.company_id = ${companyId} AND c.phone_e164 = ${phoneE164}) AS customer,
          ${messagingContextColumns(companyId)}`,
    'order_prelude',
  );
  return prelude!; // scalar subqueries: always one row
}

/** What place_order() (src/db/functions/place_order.sql) writes: the service has decided every value. Fields are the columns they fill. */
export interface PlaceOrderWrite {
  customer: Pick<CustomerRecord, 'id' | 'name' | 'phone_e164' | 'email'> & { address: DeliveryAddress | null };
  order: Pick<
    OrderRecord,
    'id' | 'order_number' | 'payment' | 'payment_reference' | 'notes' | 'amount' | 'discount_amount' | 'shipping_amount' | 'delivery_address'
  > & {
    /** required for a placed order (a staff draft may have none) */
    external_reference: NonNullable<OrderRecord['external_reference']>;
    location_id: NonNullable<OrderRecord['location_id']>;
  };
  lines: Pick<OrderLineRow, 'variant_id' | 'sku' | 'name' | 'quantity' | 'unit_price' | 'line_total' | 'tax_rate' | 'discount' | 'shipping'>[];
  /** the reserve_stock() lines (reservationLines in reservations.ts) */
  reservations: { variant_id: string; quantity: string; product_id: string; reservation_id: string }[];
  booking_job_id: string | null;
  /** The customer's marketing answers given while ordering, recorded by place_order_with_event() when they change the state. */
  consents?: OrderConsent[];
  /** The checkout this order completes: its held stock becomes the order's (complete_checkout_stock.sql). Absent for POST /orders. */
  checkout_id?: string;
  /** With checkout_id: the checkout must still be open (its buyer completing it), else CHECKOUT_CLOSED and nothing is kept. */
  checkout_open?: boolean;
  /** With checkout_open: the checkout's line_items, buyer, fulfillment and discount_codes as read to price the order. */
  checkout_state?: { line_items: unknown; buyer: unknown; fulfillment: unknown; discount_codes: string[] };
  /** With checkout_id: what the completed checkout keeps (the instrument it was paid with, what it came to). */
  checkout_payment?: unknown;
  checkout_view?: unknown;
}

/** A consent row an order records (customer_consents): its id, what it says, and through what. */
export type OrderConsent = Pick<CustomerConsentRow, 'id' | 'purpose' | 'channel' | 'state' | 'source' | 'actor'>;

/** SQLSTATE raised by place_order() when the external_reference is already used (nothing was kept). */
export const REFERENCE_TAKEN = 'CS200';
/** SQLSTATE raised by place_order() when the checkout an order completes is no longer open, or changed (checkout_open). */
export const CHECKOUT_CLOSED = 'CS410';

/** The order.created event place_order_with_event() records: its id and the data the service knows before the write. */
export interface PlacedEvent {
  id: string;
  data: Record<string, unknown>;
  /** the id of its order.cod_confirmation_requested event, recorded when place_order() asks for a COD confirmation */
  cod_requested_id: string;
  /** its WhatsApp messages (orders/whatsapp-messages.ts), stored beside data */
  whatsapp?: unknown;
}

/**
 * Writes the order, its customer, lines, job, reservations and its order.created event in one statement (one
 * implicit transaction): place_order_with_event() (src/db/functions/place_order_with_event.sql) around place_order().
 */
export async function placeOrderAtomically(db: Db, companyId: string, w: PlaceOrderWrite, event: PlacedEvent): Promise<OrderRow> {
  // place_order() returns the order as jsonb (src/db/functions/place_order.sql): the same fields, created_at as ISO text.
  const rows = await db.query<{ o: Omit<OrderRow, 'created_at'> & { created_at: string } }>(
    sql`SELECT place_order_with_event(${companyId}, ${JSON.stringify(w)}::jsonb, ${JSON.stringify(event)}::jsonb) AS o`,
    'place_order',
  );
  const o = rows[0].o;
  return { ...o, created_at: new Date(o.created_at) };
}

export async function findOrderIdByExternalReference(db: Db, companyId: string, reference: string): Promise<string | undefined> {
  const rows = await db.query<Pick<OrderRecord, 'id'>>(
    sql`SELECT id FROM orders WHERE company_id = ${companyId} AND external_reference = ${reference}`,
    'order_by_external_reference',
  );
  return rows[0]?.id;
}

/** The active location orders ship from, if any. */
export async function findShipFromLocation(db: Db, companyId: string): Promise<string | undefined> {
  const rows = await db.query<Pick<StockLocationRow, 'id'>>(
    sql`SELECT id FROM stock_locations WHERE company_id = ${companyId} AND ships_orders AND active`,
    'ship_from_location',
  );
  return rows[0]?.id;
}

export async function companyAutoCourierBooking(db: Db, companyId: string): Promise<boolean> {
  const rows = await db.query<Pick<CompanyRow, 'auto_courier_booking'>>(
    sql`SELECT auto_courier_booking FROM companies WHERE id = ${companyId}`,
    'company_auto_booking',
  );
  return rows[0]?.auto_courier_booking ?? false;
}

export interface NewLine {
  variantId: string;
  sku: string;
  name: string;
  quantity: string;
  unitPrice: string;
  lineTotal: string;
  taxRate: string;
}

/** Writes an order's lines (draft orders; POST /orders writes them inside place_order()). */
export async function insertOrderLines(db: Db, companyId: string, orderId: string, lines: NewLine[]): Promise<void> {
  const values = sql.join(
    lines.map(
      (l, i) =>
        sql`(${companyId}, ${orderId}, ${i + 1}, ${l.variantId}, ${l.sku}, ${l.name}, ${l.quantity}::numeric, ${l.unitPrice}::numeric, ${l.lineTotal}::numeric, ${l.taxRate}::numeric)`,
    ),
    sql`, `,
  );
  await db.query(sql`
    INSERT INTO order_lines (company_id, order_id, line_no, variant_id, sku, name, quantity, unit_price, line_total, tax_rate) VALUES ${values}`);
}

/**
 * Records that a courier booking is due (transactional outbox; the fulfilment worker performs it). The row is
 * written by enqueue_courier_booking() (src/db/functions/enqueue_courier_booking.sql), which place_order() calls too: one writer of the job.
 */
export async function insertCourierBookingJob(db: Db, companyId: string, jobId: string, orderId: string): Promise<void> {
  await db.query(sql`SELECT enqueue_courier_booking(${companyId}, ${jobId}, ${orderId})`);
}

/** A staff draft's order row (no reservation, no location); false when the external_reference is taken. */
export async function insertDraftOrder(
  tx: Db,
  companyId: string,
  o: {
    id: string;
    orderNumber: string;
    externalReference: string | null;
    customerId: string;
    payment: 'cod' | 'prepaid';
    paymentReference: string | null;
    notes: string | null;
    amount: string;
    deliveryAddress: DeliveryAddress | null;
  },
): Promise<boolean> {
  const rows = await tx.query(sql`
    INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, payment_reference, notes, amount, delivery_address)
    VALUES (${companyId}, ${o.id}, ${o.orderNumber}, ${o.externalReference}, ${o.customerId}, 'draft', ${o.payment},
            ${o.paymentReference}, ${o.notes}, ${o.amount}::numeric, ${o.deliveryAddress ? JSON.stringify(o.deliveryAddress) : null}::jsonb)
    ON CONFLICT (company_id, external_reference) DO NOTHING RETURNING id`);
  return rows.length === 1;
}

/** An order as the API shows it: its own columns and its customer's name and phone. */
export type OrderRow = Pick<
  OrderRecord,
  | 'id'
  | 'order_number'
  | 'status'
  | 'amount'
  | 'currency'
  | 'created_at'
  | 'external_reference'
  | 'payment'
  | 'delivery_address'
  | 'cod_confirmation'
  | 'cod_confirmation_due_at'
  | 'cod_confirmation_settled_at'
  | 'cod_confirmation_settled_by'
> & { customer_name: CustomerRecord['name']; customer_phone: CustomerRecord['phone_e164'] };

type Prefixed<Row, K extends keyof Row & string, P extends string> = { [F in K as `${P}${F}`]: Row[F] | null };

/** The order's shipment and invoice columns, as findOrderByReference joins them (null when absent). */
export type FulfilmentColumns = { customer_messaging_opted_out: boolean; customer_erased_at: Date | null; customer_consents: LatestConsent[] } & Prefixed<
  ShipmentRow,
  'status' | 'awb' | 'courier' | 'tracking_url' | 'delivered_at',
  'shipment_'
> &
  Prefixed<InvoiceRow, 'invoice_number', ''> &
  Prefixed<InvoiceRow, 'id' | 'total' | 'amount_paid' | 'due_at', 'invoice_'> &
  Prefixed<CreditNoteRow, 'id' | 'credit_note_number' | 'reason' | 'total' | 'issued_at', 'credit_note_'>;

const LINE_FIELDS = ['sku', 'name', 'quantity', 'unit_price', 'line_total'] as const;
export type LineRow = Pick<OrderLineRow, (typeof LINE_FIELDS)[number]>;
const LINE_COLUMNS = columnList(orderLines, LINE_FIELDS);

const ORDER_COLUMNS = sql`o.id, o.order_number, o.status, o.amount, o.currency, o.created_at, o.external_reference, o.payment, o.delivery_address,
  o.cod_confirmation, o.cod_confirmation_due_at, o.cod_confirmation_settled_at, o.cod_confirmation_settled_by,
  c.name AS customer_name, c.phone_e164 AS customer_phone`;

export async function findOrderById(db: Db, companyId: string, orderId: string): Promise<OrderRow | undefined> {
  const rows = await db.query<OrderRow>(sql`
    SELECT ${ORDER_COLUMNS} FROM orders o JOIN customers c ON c.company_id = o.company_id AND c.id = o.customer_id
    WHERE o.company_id = ${companyId} AND o.id = ${orderId}`);
  return rows[0];
}

/**
 * The order a customer-facing reference names, with its lines, in one round trip: order number first, then
 * order_id, then external_reference (a caller's reference may look like another order's number). Drafts never
 * match; with `phoneE164`, only that customer's orders do. The order's one shipment and one invoice are joined
 * (each unique per order). The order is found first, by its three unique keys (at most three rows), and only then
 * joined: planned as one join, statistics that took a company's customers for one row made the planner walk every
 * customer and probe orders once for each (5,572 buffers and 5 ms with 500 customers, against 16 buffers).
 * The lines travel as JSON with their numbers as text, exact.
 */
export async function findOrderByReference(
  reader: TenantReader,
  reference: string,
  phoneE164: string | null,
): Promise<(OrderRow & FulfilmentColumns & { lines: LineRow[] }) | undefined> {
  const { companyId } = reader;
  return reader.one<OrderRow & FulfilmentColumns & { lines: LineRow[] }>(
    sql`
    WITH m AS MATERIALIZED (
      SELECT o.*, CASE WHEN o.order_number = ${reference} THEN 0 WHEN o.id = ${reference} THEN 1 ELSE 2 END AS rank
      FROM orders o
      WHERE o.company_id = ${companyId} AND o.status <> 'draft'
        AND (o.order_number = ${reference} OR o.id = ${reference} OR o.external_reference = ${reference}))
    SELECT ${ORDER_COLUMNS}, c.messaging_opted_out AS customer_messaging_opted_out, c.erased_at AS customer_erased_at,
      (${latestConsentsOf(companyId, sql`c.id`)}) AS customer_consents,
      s.status AS shipment_status, s.awb AS shipment_awb, s.courier AS shipment_courier, s.tracking_url AS shipment_tracking_url,
      s.delivered_at AS shipment_delivered_at,
      i.invoice_number, i.id AS invoice_id, i.total AS invoice_total, i.amount_paid AS invoice_amount_paid, i.due_at AS invoice_due_at,
      cn.id AS credit_note_id, cn.credit_note_number AS credit_note_credit_note_number, cn.reason AS credit_note_reason, cn.total AS credit_note_total,
      cn.issued_at AS credit_note_issued_at,
      (SELECT coalesce(json_agg(json_build_object('sku', l.sku, 'name', l.name, 'quantity', l.quantity::text, 'unit_price', l.unit_price::text,
                                                  'line_total', l.line_total::text) ORDER BY l.line_no), '[]'::json)
       FROM order_lines l WHERE l.company_id = ${companyId} AND l.order_id = o.id) AS lines
    FROM m o JOIN customers c ON c.company_id = ${companyId} AND c.id = o.customer_id
    LEFT JOIN shipments s ON s.company_id = ${companyId} AND s.order_id = o.id
    LEFT JOIN invoices i ON i.company_id = ${companyId} AND i.order_id = o.id
    LEFT JOIN credit_notes cn ON cn.company_id = ${companyId} AND cn.invoice_id = i.id
    WHERE (${phoneE164}::text IS NULL OR c.phone_e164 = ${phoneE164})
    ORDER BY o.rank
    LIMIT 1`,
    'order_by_reference',
  );
}

export async function findOrderLines(db: Db, companyId: string, orderId: string): Promise<LineRow[]> {
  return db.query<LineRow>(
    sql`SELECT ${LINE_COLUMNS} FROM order_lines WHERE company_id = ${companyId} AND order_id = ${orderId} ORDER BY line_no`,
    'order_lines_by_order',
  );
}

/** Takes a block of `block` order numbers from the company's counter (the database function allocate_order_numbers()); its first, as text (int8). */
export async function allocateOrderNumbers(db: Db, companyId: string, block: number): Promise<string> {
  const rows = await db.query<{ first: string }>(sql`SELECT allocate_order_numbers(${companyId}, ${block}::integer) AS first`, 'allocate_order_numbers');
  return rows[0].first;
}

/**
 * An order a UCP checkout placed owes its platform an event (order_shipped, order_canceled…) when the platform named a
 * webhook: one row in the UCP outbox (migration 0026), in the caller's transaction. Nothing for any other order.
 */
export async function owePlatformOrderEvent(tx: Db, companyId: string, orderId: string, checkoutId: string, eventType: string): Promise<void> {
  await tx.query(sql`
    INSERT INTO ucp_order_deliveries (company_id, id, checkout_id, order_id, event_type, url)
    SELECT company_id, ${`${orderId}:${eventType}`}, id, order_id, ${eventType}, platform_webhook_url
      FROM checkout_sessions
     WHERE company_id = ${companyId} AND id = ${checkoutId} AND order_id = ${orderId} AND platform_webhook_url IS NOT NULL
    ON CONFLICT DO NOTHING`);
}
