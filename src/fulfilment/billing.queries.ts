import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, creditNotes, invoices, type CreditNoteRow, type InvoiceRow } from '../db/schema/index.js';

/** An order's invoice and an invoice's credit note, as billing and the order views read them. */

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
