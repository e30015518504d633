import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';

export interface CustomerRow {
  id: string;
  name: string;
  phone_e164: string;
  email: string | null;
  address_name: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  state: string | null;
  pincode: string | null;
  address_phone: string | null;
  messaging_opted_out: boolean;
}

export interface AddressFields {
  name: string | null;
  line1: string;
  line2: string | null;
  city: string;
  state: string;
  pincode: string;
  phone: string | null;
}

const COLUMNS = sql`id, name, phone_e164, email, address_name, address_line1, address_line2, city, state, pincode, address_phone, messaging_opted_out`;

export async function findCustomerByPhone(db: Db, companyId: string, phoneE164: string): Promise<CustomerRow | undefined> {
  const rows = await db.query<CustomerRow>(
    sql`SELECT ${COLUMNS} FROM customers WHERE company_id = ${companyId} AND phone_e164 = ${phoneE164}`,
    'customer_by_phone',
  );
  return rows[0];
}

/**
 * Finds or creates the customer with this phone in one statement. The record keeps what it knows: name
 * and email on file are never changed; the address is filled only when the record has none. ON CONFLICT
 * DO UPDATE returns the row even when a concurrent transaction created it after our snapshot (it waits
 * for that transaction), and its row lock serialises one customer's concurrent orders.
 */
export async function upsertCustomer(
  db: Db,
  companyId: string,
  c: { id: string; name: string; phoneE164: string; email: string | null; address: AddressFields | null },
): Promise<CustomerRow> {
  const a = c.address;
  const fill = (column: string) => sql.raw(`${column} = CASE WHEN customers.address_line1 IS NULL THEN EXCLUDED.${column} ELSE customers.${column} END`);
  const rows = await db.query<CustomerRow>(
    sql`INSERT INTO customers (company_id, id, name, phone_e164, email, address_name, address_line1, address_line2, city, state, pincode, address_phone)
        VALUES (${companyId}, ${c.id}, ${c.name}, ${c.phoneE164}, ${c.email}, ${a?.name ?? null}, ${a?.line1 ?? null}, ${a?.line2 ?? null},
                ${a?.city ?? null}, ${a?.state ?? null}, ${a?.pincode ?? null}, ${a?.phone ?? null})
        ON CONFLICT (company_id, phone_e164) DO UPDATE SET
          ${sql.join(['address_name', 'address_line1', 'address_line2', 'city', 'state', 'pincode', 'address_phone'].map(fill), sql`, `)},
          updated_at = CASE WHEN customers.address_line1 IS NULL AND EXCLUDED.address_line1 IS NOT NULL THEN now() ELSE customers.updated_at END
        RETURNING ${COLUMNS}`,
    'customer_upsert',
  );
  return rows[0];
}

export interface OrderSummaryRow {
  id: string;
  order_number: string;
  status: string;
  amount: string;
  currency: string;
  created_at: Date;
  external_reference: string | null;
}

/** The customer's latest orders, newest first; drafts are never shown. */
export async function recentOrders(db: Db, companyId: string, customerId: string, limit: number): Promise<OrderSummaryRow[]> {
  return db.query<OrderSummaryRow>(
    sql`SELECT id, order_number, status, amount, currency, created_at, external_reference FROM orders
        WHERE company_id = ${companyId} AND customer_id = ${customerId} AND status <> 'draft'
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    'customer_recent_orders',
  );
}
