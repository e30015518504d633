import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { CreditNoteRow, DocumentFileRow, InvoiceRow, OrderRow } from '../db/schema/index.js';

/** What an invoice or credit-note PDF is drawn from, and the drawn PDFs kept in `document_files` (migration 0021). */

export type InvoiceForPdf = Pick<InvoiceRow, 'id' | 'order_id' | 'invoice_number' | 'total' | 'amount_paid' | 'issued_at' | 'document'> &
  Pick<OrderRow, 'payment'>;
export type CreditNoteForPdf = Pick<CreditNoteRow, 'id' | 'invoice_id' | 'credit_note_number' | 'reason' | 'issued_at'>;

export async function invoiceById(db: Db, companyId: string, invoiceId: string): Promise<InvoiceForPdf | undefined> {
  const rows = await db.query<InvoiceForPdf>(sql`
    SELECT i.id, i.order_id, i.invoice_number, i.total, i.amount_paid, i.issued_at, i.document, o.payment
    FROM invoices i JOIN orders o ON o.company_id = ${companyId} AND o.id = i.order_id
    WHERE i.company_id = ${companyId} AND i.id = ${invoiceId}`);
  return rows[0];
}

export async function creditNoteById(db: Db, companyId: string, creditNoteId: string): Promise<CreditNoteForPdf | undefined> {
  const rows = await db.query<CreditNoteForPdf>(
    sql`SELECT id, invoice_id, credit_note_number, reason, issued_at FROM credit_notes WHERE company_id = ${companyId} AND id = ${creditNoteId}`,
  );
  return rows[0];
}

/** A PDF as drawn for one view of a document. */
export type StoredFile = Pick<DocumentFileRow, 'view_hash' | 'etag'> & { pdf: Uint8Array };

export async function findDocumentFile(db: Db, companyId: string, documentId: string): Promise<StoredFile | undefined> {
  const rows = await db.query<StoredFile>(sql`SELECT view_hash, etag, pdf FROM document_files WHERE company_id = ${companyId} AND document_id = ${documentId}`);
  return rows[0];
}

/** One row per document, replaced when it is drawn again. */
export async function saveDocumentFile(db: Db, companyId: string, documentId: string, file: StoredFile): Promise<void> {
  await db.query(sql`
        INSERT INTO document_files (company_id, document_id, view_hash, etag, pdf) VALUES (${companyId}, ${documentId}, ${file.view_hash}, ${file.etag}, ${file.pdf})
        ON CONFLICT (company_id, document_id) DO UPDATE SET view_hash = EXCLUDED.view_hash, etag = EXCLUDED.etag, pdf = EXCLUDED.pdf, rendered_at = EXCLUDED.rendered_at`);
}
