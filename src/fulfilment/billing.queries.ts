import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import {
  columnList,
  creditNotes,
  invoices,
  type creditNoteCounters,
  type CreditNoteRow,
  type CustomerRow,
  type invoiceCounters,
  type InvoiceRow,
  type OrderLineRow,
  type OrderRow,
  type PaymentRow,
  type ProductRow,
} from '../db/schema/index.js';

/**
 * Invoices, credit notes and payments: an order's invoice and an invoice's credit note as billing and the order views
 * read them, the (company, FY) counters, and what an invoice document is built from. Amounts are decimal strings.
 */

const INVOICE_FIELDS = ['id', 'invoice_number', 'total', 'amount_paid', 'issued_at', 'due_at'] as const;
/** The invoice columns billing and the staff view read. */
export type OrderInvoice = Pick<InvoiceRow, (typeof INVOICE_FIELDS)[number]>;
const INVOICE_COLS = columnList(invoices, INVOICE_FIELDS);

export async function findInvoice(db: Db, companyId: string, orderId: string, lock = false): Promise<OrderInvoice | undefined> {
  const rows = await db.query<OrderInvoice>(
    lock
      ? sql`SELECT ${INVOICE_COLS} FROM invoices WHERE company_id = ${companyId} AND order_id = ${orderId} FOR UPDATE`
      : sql`SELECT ${INVOICE_COLS} FROM invoices WHERE company_id = ${companyId} AND order_id = ${orderId}`,
  );
  return rows[0];
}

const CREDIT_NOTE_FIELDS = ['id', 'invoice_id', 'credit_note_number', 'reason', 'total', 'issued_at'] as const;
export type InvoiceCreditNote = Pick<CreditNoteRow, (typeof CREDIT_NOTE_FIELDS)[number]>;
const CREDIT_NOTE_COLS = columnList(creditNotes, CREDIT_NOTE_FIELDS);

export async function findCreditNote(db: Db, companyId: string, invoiceId: string): Promise<InvoiceCreditNote | undefined> {
  const rows = await db.query<InvoiceCreditNote>(
    sql`SELECT ${CREDIT_NOTE_COLS} FROM credit_notes WHERE company_id = ${companyId} AND invoice_id = ${invoiceId}`,
  );
  return rows[0];
}

/**
 * The next number of a (company, FY) series: the counter row is created at 1 or incremented, under its row lock held
 * to commit (concurrent issues queue; a rollback gives the number back). Returns the number taken.
 */
export async function takeInvoiceNumber(tx: Db, companyId: string, financialYear: string): Promise<number> {
  const [counter] = await tx.query<Pick<typeof invoiceCounters.$inferSelect, 'last_number'>>(sql`
    INSERT INTO invoice_counters (company_id, financial_year, last_number) VALUES (${companyId}, ${financialYear}, 1)
    ON CONFLICT (company_id, financial_year) DO UPDATE SET last_number = invoice_counters.last_number + 1
    RETURNING last_number`);
  return counter.last_number;
}

export interface NewInvoice {
  id: string;
  orderId: string;
  number: string;
  financialYear: string;
  /** decimal string */
  total: string;
  issuedAt: Date;
  dueAt: Date;
  document: unknown;
}

export async function insertInvoice(tx: Db, companyId: string, i: NewInvoice): Promise<void> {
  await tx.query(sql`
    INSERT INTO invoices (company_id, id, order_id, invoice_number, financial_year, total, issued_at, due_at, document)
    VALUES (${companyId}, ${i.id}, ${i.orderId}, ${i.number}, ${i.financialYear}, ${i.total}::numeric,
            ${i.issuedAt.toISOString()}::timestamptz, ${i.dueAt.toISOString()}::timestamptz, ${JSON.stringify(i.document)}::jsonb)`);
}

/** The credit notes' series, under the same row-lock rule as takeInvoiceNumber. */
export async function takeCreditNoteNumber(tx: Db, companyId: string, financialYear: string): Promise<number> {
  const [counter] = await tx.query<Pick<typeof creditNoteCounters.$inferSelect, 'last_number'>>(sql`
    INSERT INTO credit_note_counters (company_id, financial_year, last_number) VALUES (${companyId}, ${financialYear}, 1)
    ON CONFLICT (company_id, financial_year) DO UPDATE SET last_number = credit_note_counters.last_number + 1
    RETURNING last_number`);
  return counter.last_number;
}

export interface NewCreditNote {
  id: string;
  invoiceId: string;
  number: string;
  financialYear: string;
  reason: CreditNoteRow['reason'];
  /** decimal string */
  total: string;
  issuedAt: Date;
}

export async function insertCreditNote(tx: Db, companyId: string, n: NewCreditNote): Promise<void> {
  await tx.query(sql`
    INSERT INTO credit_notes (company_id, id, invoice_id, credit_note_number, financial_year, reason, total, issued_at)
    VALUES (${companyId}, ${n.id}, ${n.invoiceId}, ${n.number}, ${n.financialYear}, ${n.reason},
            ${n.total}::numeric, ${n.issuedAt.toISOString()}::timestamptz)`);
}

/** The invoice a payment is added to, its row locked. */
export async function lockInvoiceForPayment(
  tx: Db,
  companyId: string,
  invoiceId: string,
): Promise<Pick<InvoiceRow, 'total' | 'amount_paid' | 'invoice_number' | 'order_id'> | undefined> {
  const [inv] = await tx.query<Pick<InvoiceRow, 'total' | 'amount_paid' | 'invoice_number' | 'order_id'>>(
    sql`SELECT total, amount_paid, invoice_number, order_id FROM invoices WHERE company_id = ${companyId} AND id = ${invoiceId} FOR UPDATE`,
  );
  return inv;
}

/** The invoice a delivery's cash is set on, its row locked. */
export async function lockInvoiceForDeliveryCash(
  tx: Db,
  companyId: string,
  invoiceId: string,
): Promise<Pick<InvoiceRow, 'total' | 'amount_paid' | 'order_id'> | undefined> {
  const [inv] = await tx.query<Pick<InvoiceRow, 'total' | 'amount_paid' | 'order_id'>>(
    sql`SELECT total, amount_paid, order_id FROM invoices WHERE company_id = ${companyId} AND id = ${invoiceId} FOR UPDATE`,
  );
  return inv;
}

/** A shipment's COD payment, its row locked. */
export async function lockShipmentPayment(tx: Db, companyId: string, shipmentId: string): Promise<Pick<PaymentRow, 'id' | 'amount'> | undefined> {
  const [existing] = await tx.query<Pick<PaymentRow, 'id' | 'amount'>>(
    sql`SELECT id, amount FROM payments WHERE company_id = ${companyId} AND shipment_id = ${shipmentId} FOR UPDATE`,
  );
  return existing;
}

export interface NewPayment {
  id: string;
  invoiceId: string;
  /** decimal string */
  amount: string;
  method: 'prepaid' | 'cod' | 'manual';
  reference: string | null;
  recordedAt: Date;
}

export async function insertPayment(tx: Db, companyId: string, p: NewPayment): Promise<void> {
  await tx.query(sql`
    INSERT INTO payments (company_id, id, invoice_id, amount, method, reference, recorded_at)
    VALUES (${companyId}, ${p.id}, ${p.invoiceId}, ${p.amount}::numeric, ${p.method}, ${p.reference}, ${p.recordedAt.toISOString()}::timestamptz)`);
}

/** amount_paid += amount (a decimal string). */
export async function addInvoicePaid(tx: Db, companyId: string, invoiceId: string, amount: string): Promise<void> {
  await tx.query(sql`UPDATE invoices SET amount_paid = amount_paid + ${amount}::numeric WHERE company_id = ${companyId} AND id = ${invoiceId}`);
}

/** A shipment's COD payment set to `amount` (a decimal string). */
export async function setPaymentAmount(tx: Db, companyId: string, paymentId: string, amount: string, recordedAt: Date): Promise<void> {
  await tx.query(sql`
      UPDATE payments SET amount = ${amount}::numeric, recorded_at = ${recordedAt.toISOString()}::timestamptz
      WHERE company_id = ${companyId} AND id = ${paymentId}`);
}

/** The COD payment collected at a shipment's delivery. */
export async function insertDeliveryPayment(
  tx: Db,
  companyId: string,
  p: { id: string; invoiceId: string; shipmentId: string; amount: string; reference: string | null; recordedAt: Date },
): Promise<void> {
  await tx.query(sql`
      INSERT INTO payments (company_id, id, invoice_id, shipment_id, amount, method, reference, recorded_at)
      VALUES (${companyId}, ${p.id}, ${p.invoiceId}, ${p.shipmentId}, ${p.amount}::numeric, 'cod', ${p.reference}, ${p.recordedAt.toISOString()}::timestamptz)`);
}

/** amount_paid moves by (to - from), both decimal strings: one payment's amount replaced. */
export async function replaceInvoicePaid(tx: Db, companyId: string, invoiceId: string, from: string, to: string): Promise<void> {
  await tx.query(sql`
    UPDATE invoices SET amount_paid = amount_paid - ${from}::numeric + ${to}::numeric
    WHERE company_id = ${companyId} AND id = ${invoiceId}`);
}

export type InvoiceParty = Pick<OrderRow, 'order_number' | 'created_at' | 'delivery_address'> &
  Pick<CustomerRow, 'name' | 'phone_e164' | 'address_line1' | 'address_line2' | 'city' | 'state' | 'pincode'> & { company_name: string };

/** The order, its customer and the company's name, as an invoice document states them. */
export async function findInvoiceParty(db: Db, companyId: string, orderId: string): Promise<InvoiceParty | undefined> {
  const [order] = await db.query<InvoiceParty>(sql`
    SELECT o.order_number, o.created_at, o.delivery_address, c.name, c.phone_e164, c.address_line1, c.address_line2, c.city, c.state, c.pincode,
      (SELECT co.name FROM companies co WHERE co.id = ${companyId}) AS company_name
    FROM orders o JOIN customers c ON c.company_id = ${companyId} AND c.id = o.customer_id
    WHERE o.company_id = ${companyId} AND o.id = ${orderId}`);
  return order;
}

export type InvoiceLine = Pick<OrderLineRow, 'sku' | 'name' | 'quantity' | 'unit_price' | 'line_total' | 'tax_rate' | 'discount' | 'shipping'> &
  Pick<ProductRow, 'hsn_code' | 'unit'>;

/** The order's lines with their products' HSN codes and units, in line order. */
export async function findInvoiceLines(db: Db, companyId: string, orderId: string): Promise<InvoiceLine[]> {
  return db.query<InvoiceLine>(sql`
    SELECT l.sku, l.name, l.quantity, l.unit_price, l.line_total, l.tax_rate, l.discount, l.shipping, p.hsn_code, p.unit
    FROM order_lines l
    JOIN variants v ON v.company_id = ${companyId} AND v.id = l.variant_id
    JOIN products p ON p.company_id = ${companyId} AND p.id = v.product_id
    WHERE l.company_id = ${companyId} AND l.order_id = ${orderId}
    ORDER BY l.line_no`);
}
