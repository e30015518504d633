import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { CheckoutSessionRow, CheckoutStatus } from '../db/schema/index.js';

/** A checkout's line as kept: the catalogue's price, title and GST rate when the line was added (UCP quantity is whole). */
export interface StoredLine {
  id: string;
  /** the identifier the platform sent (item.id): our SKU, variant id or barcode */
  item_id: string;
  variant_id: string;
  sku: string;
  title: string;
  unit_price: string;
  gst_rate: string;
  quantity: number;
}

export type CheckoutRecord = Omit<CheckoutSessionRow, 'company_id' | 'line_items'> & { line_items: StoredLine[] };

const COLUMNS = sql.raw(
  'id, status, currency, ucp_version, location_id, line_items, buyer, fulfillment, discount_codes, payment, platform_webhook_url, expires_at, order_id, completed_view, order_updates, created_at, updated_at',
);

export interface NewCheckout {
  id: string;
  status: CheckoutStatus;
  ucpVersion: string;
  locationId: string;
  lines: StoredLine[];
  buyer: unknown;
  fulfillment: unknown;
  codes: string[];
  payment: unknown;
  platformWebhookUrl: string | null;
  holdMinutes: number;
}

export async function insertCheckout(tx: Db, companyId: string, c: NewCheckout): Promise<CheckoutRecord> {
  const [row] = await tx.query<CheckoutRecord>(sql`
    INSERT INTO checkout_sessions (company_id, id, status, ucp_version, location_id, line_items, buyer, fulfillment, discount_codes, payment,
                                   platform_webhook_url, expires_at)
    VALUES (${companyId}, ${c.id}, ${c.status}, ${c.ucpVersion}, ${c.locationId}, ${JSON.stringify(c.lines)}::jsonb, ${JSON.stringify(c.buyer ?? null)}::jsonb,
            ${JSON.stringify(c.fulfillment ?? null)}::jsonb, ${sql.param(c.codes)}::text[], ${JSON.stringify(c.payment ?? null)}::jsonb,
            ${c.platformWebhookUrl}, now() + ${c.holdMinutes} * interval '1 minute')
    RETURNING ${COLUMNS}`);
  return row;
}

/** The checkout, or undefined; `lock`: its row locked for this transaction (checkout row first, then stock rows). */
export async function findCheckout(db: Db, companyId: string, id: string, lock = false): Promise<CheckoutRecord | undefined> {
  const [row] = await db.query<CheckoutRecord>(
    lock
      ? sql`SELECT ${COLUMNS} FROM checkout_sessions WHERE company_id = ${companyId} AND id = ${id} FOR UPDATE`
      : sql`SELECT ${COLUMNS} FROM checkout_sessions WHERE company_id = ${companyId} AND id = ${id}`,
  );
  return row;
}

export interface CheckoutChange {
  status: CheckoutStatus;
  lines: StoredLine[];
  buyer: unknown;
  fulfillment: unknown;
  codes: string[];
  payment: unknown;
  /** minutes from now the holds last; null leaves expires_at as it is */
  holdMinutes: number | null;
}

/** The SET is built here, not in a CASE: Citus refuses now() inside CASE or COALESCE on a distributed table. */
export async function updateCheckout(tx: Db, companyId: string, id: string, c: CheckoutChange): Promise<CheckoutRecord> {
  const [row] = await tx.query<CheckoutRecord>(sql`
    UPDATE checkout_sessions SET status = ${c.status}, line_items = ${JSON.stringify(c.lines)}::jsonb, buyer = ${JSON.stringify(c.buyer ?? null)}::jsonb,
           fulfillment = ${JSON.stringify(c.fulfillment ?? null)}::jsonb, discount_codes = ${sql.param(c.codes)}::text[],
           payment = ${JSON.stringify(c.payment ?? null)}::jsonb,
           ${c.holdMinutes === null ? sql`` : sql`expires_at = now() + ${c.holdMinutes}::int * interval '1 minute',`}
           updated_at = now()
     WHERE company_id = ${companyId} AND id = ${id}
    RETURNING ${COLUMNS}`);
  return row;
}

/** The addresses kept for a buyer ('email:…' or 'phone:…'), oldest first. */
export async function findBuyerAddresses(db: Db, companyId: string, buyerKey: string): Promise<{ id: string; address: Record<string, unknown> }[]> {
  return db.query(sql`
    SELECT id, address FROM buyer_addresses WHERE company_id = ${companyId} AND buyer_key = ${buyerKey} ORDER BY created_at, id`);
}

/** Keeps an address for the buyer (the same id again changes nothing). */
export async function addBuyerAddress(db: Db, companyId: string, buyerKey: string, id: string, address: Record<string, unknown>): Promise<void> {
  await db.query(sql`
    INSERT INTO buyer_addresses (company_id, buyer_key, id, address) VALUES (${companyId}, ${buyerKey}, ${id}, ${JSON.stringify(address)}::jsonb)
    ON CONFLICT DO NOTHING`);
}

/** The shipment of a checkout's order, as the UCP order shows it (fulfilment events). */
export interface OrderShipmentFacts {
  id: string;
  courier: string | null;
  awb: string | null;
  tracking_url: string | null;
  delivered_at: Date | null;
  created_at: Date;
}

export async function findOrderShipment(db: Db, companyId: string, orderId: string): Promise<OrderShipmentFacts | undefined> {
  const rows = await db.query<OrderShipmentFacts>(sql`
    SELECT id, courier, awb, tracking_url, delivered_at, created_at FROM shipments WHERE company_id = ${companyId} AND order_id = ${orderId}`);
  return rows[0];
}

/** What a platform recorded on the checkout's order through the conformance harness (fulfilment events, adjustments). */
export async function setOrderUpdates(db: Db, companyId: string, checkoutId: string, updates: { events: unknown[]; adjustments: unknown[] }): Promise<void> {
  await db.query(sql`
    UPDATE checkout_sessions SET order_updates = ${JSON.stringify(updates)}::jsonb, updated_at = now()
     WHERE company_id = ${companyId} AND id = ${checkoutId}`);
}
