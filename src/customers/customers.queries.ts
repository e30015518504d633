import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, customers, type CustomerRow as CustomerRecord, type OrderRow, type StoredAddress } from '../db/schema/index.js';

const CUSTOMER_FIELDS = [
  'id',
  'name',
  'phone_e164',
  'email',
  'address_name',
  'address_line1',
  'address_line2',
  'city',
  'state',
  'pincode',
  'address_phone',
  'messaging_opted_out',
  'erased_at',
] as const;
export type CustomerRow = Pick<CustomerRecord, (typeof CUSTOMER_FIELDS)[number]>;

/** An address as stored on an order (and on a customer's record, column by column). */
export type AddressFields = StoredAddress;

const COLUMNS = columnList(customers, CUSTOMER_FIELDS);

export async function findCustomerByPhone(db: Db, companyId: string, phoneE164: string): Promise<CustomerRow | undefined> {
  const rows = await db.query<CustomerRow>(
    sql`SELECT ${COLUMNS} FROM customers WHERE company_id = ${companyId} AND phone_e164 = ${phoneE164}`,
    'customer_by_phone',
  );
  return rows[0];
}

/** Finds or creates the customer with this phone: the upsert_customer() SQL function (src/db/functions/upsert_customer.sql) keeps the rules. */
export async function upsertCustomer(
  db: Db,
  companyId: string,
  c: { id: string; name: string; phoneE164: string; email: string | null; address: AddressFields | null },
): Promise<CustomerRow> {
  const cust = { id: c.id, name: c.name, phone_e164: c.phoneE164, email: c.email, address: c.address };
  const rows = await db.query<CustomerRow>(sql`SELECT ${COLUMNS} FROM upsert_customer(${companyId}, ${JSON.stringify(cust)}::jsonb)`, 'customer_upsert');
  return rows[0];
}

export type OrderSummaryRow = Pick<
  OrderRow,
  | 'id'
  | 'order_number'
  | 'status'
  | 'amount'
  | 'currency'
  | 'created_at'
  | 'external_reference'
  | 'cod_confirmation'
  | 'cod_confirmation_due_at'
  | 'cod_confirmation_settled_at'
  | 'cod_confirmation_settled_by'
>;

/** The customer's latest orders, newest first; drafts are never shown. */
export async function recentOrders(db: Db, companyId: string, customerId: string, limit: number): Promise<OrderSummaryRow[]> {
  return db.query<OrderSummaryRow>(
    sql`SELECT id, order_number, status, amount, currency, created_at, external_reference,
               cod_confirmation, cod_confirmation_due_at, cod_confirmation_settled_at, cod_confirmation_settled_by FROM orders
        WHERE company_id = ${companyId} AND customer_id = ${customerId} AND status <> 'draft'
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    'customer_recent_orders',
  );
}

/** The customer with this phone, its row locked to the end of the caller's transaction (one consent change at a time). */
export async function lockCustomerByPhone(tx: Db, companyId: string, phoneE164: string): Promise<CustomerRow | undefined> {
  const rows = await tx.query<CustomerRow>(
    sql`SELECT ${COLUMNS} FROM customers WHERE company_id = ${companyId} AND phone_e164 = ${phoneE164} FOR UPDATE`,
    'customer_by_phone_locked',
  );
  return rows[0];
}

/** A customer's delivery record: how many of their orders were delivered, returned to origin, cancelled. */
export interface DeliveryRecord {
  delivered: number;
  returned_to_origin: number;
  cancelled: number;
}

/**
 * The one definition of a customer's delivery record, as a one-row subquery (docs/decisions.md "A customer's delivery
 * record"): each order counts once, by its parcel first. Returned to origin: the courier's latest word on the shipment
 * is `rto`, or staff recorded the order `returned` and no courier ever delivered it. Delivered: the order was delivered
 * (a later customer return keeps it delivered). Cancelled: the order was cancelled. `customerId` may be a subquery;
 * no customer counts nothing. The COD rules' rto_threshold reads this count too (cod/cod-settings.queries.ts).
 */
export function deliveryRecordOf(companyId: string, customerId: SQL | string): SQL {
  return sql`SELECT count(*) FILTER (WHERE x.outcome = 'delivered')::int AS delivered,
                    count(*) FILTER (WHERE x.outcome = 'returned_to_origin')::int AS returned_to_origin,
                    count(*) FILTER (WHERE x.outcome = 'cancelled')::int AS cancelled
             FROM (SELECT CASE WHEN sh.status = 'rto' OR (o.status = 'returned' AND sh.status IS DISTINCT FROM 'delivered') THEN 'returned_to_origin'
                               WHEN o.status IN ('delivered', 'returned') THEN 'delivered'
                               WHEN o.status = 'cancelled' THEN 'cancelled' END AS outcome
                   FROM orders o LEFT JOIN shipments sh ON sh.company_id = o.company_id AND sh.order_id = o.id
                   WHERE o.company_id = ${companyId} AND o.customer_id = (${customerId})) x`;
}

export async function deliveryRecord(db: Db, companyId: string, customerId: string): Promise<DeliveryRecord> {
  const rows = await db.query<DeliveryRecord>(deliveryRecordOf(companyId, customerId), 'customer_delivery_record');
  return rows[0];
}
