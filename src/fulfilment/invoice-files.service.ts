import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { CreditNoteRow, InvoiceRow, OrderRow } from '../db/schema/index.js';
import { AppError, notFound } from '../contract/errors.js';
import { findTaxProfile } from '../companies/tax-profile.service.js';
import { findCreditNote, findInvoice } from './billing.queries.js';
import { buildInvoiceDocument, type InvoiceDocument } from './invoice-document.js';
import { renderInvoicePdf, type PdfView } from './invoice-pdf.js';
import type { OrderViews } from './order-view.js';

type InvoiceForPdf = Pick<InvoiceRow, 'id' | 'order_id' | 'invoice_number' | 'total' | 'amount_paid' | 'issued_at' | 'document'> & Pick<OrderRow, 'payment'>;
type CreditNoteForPdf = Pick<CreditNoteRow, 'id' | 'invoice_id' | 'credit_note_number' | 'reason' | 'issued_at'>;

export interface DocumentFile {
  /** `INV-26-27-000001.pdf` */
  filename: string;
  pdf: Buffer;
}

const fileName = (number: string) => `${number.replace(/[^A-Za-z0-9-]+/g, '-')}.pdf`;

async function invoiceById(db: Db, companyId: string, invoiceId: string): Promise<InvoiceForPdf | undefined> {
  const rows = await db.query<InvoiceForPdf>(sql`
    SELECT i.id, i.order_id, i.invoice_number, i.total, i.amount_paid, i.issued_at, i.document, o.payment
    FROM invoices i JOIN orders o ON o.company_id = ${companyId} AND o.id = i.order_id
    WHERE i.company_id = ${companyId} AND i.id = ${invoiceId}`);
  return rows[0];
}

async function creditNoteById(db: Db, companyId: string, creditNoteId: string): Promise<CreditNoteForPdf | undefined> {
  const rows = await db.query<CreditNoteForPdf>(
    sql`SELECT id, invoice_id, credit_note_number, reason, issued_at FROM credit_notes WHERE company_id = ${companyId} AND id = ${creditNoteId}`,
  );
  return rows[0];
}

/** Invoices and credit notes as PDF files: for signed links (by document id) and for staff (by order). */
export function createInvoiceFilesService({ db, views }: { db: Db; views: OrderViews }) {
  /** The document as issued; an invoice from before issue 15 has none stored and is drawn from today's data. */
  async function documentOf(companyId: string, invoice: InvoiceForPdf): Promise<InvoiceDocument> {
    return (invoice.document as InvoiceDocument | null) ?? buildInvoiceDocument(db, companyId, invoice.order_id, await findTaxProfile(db, companyId));
  }

  async function invoiceFile(companyId: string, invoice: InvoiceForPdf): Promise<DocumentFile> {
    const view: PdfView = {
      kind: 'invoice',
      number: invoice.invoice_number,
      date: new Date(invoice.issued_at),
      document: await documentOf(companyId, invoice),
      payment: { method: invoice.payment, total: invoice.total, paid: invoice.amount_paid },
    };
    return { filename: fileName(invoice.invoice_number), pdf: await renderInvoicePdf(view) };
  }

  async function creditNoteFile(companyId: string, note: CreditNoteForPdf): Promise<DocumentFile> {
    const invoice = (await invoiceById(db, companyId, note.invoice_id))!;
    const view: PdfView = {
      kind: 'credit_note',
      number: note.credit_note_number,
      date: new Date(note.issued_at),
      document: await documentOf(companyId, invoice),
      payment: { method: invoice.payment, total: invoice.total, paid: invoice.amount_paid },
      against: { number: invoice.invoice_number, date: new Date(invoice.issued_at), reason: note.reason },
    };
    return { filename: fileName(note.credit_note_number), pdf: await renderInvoicePdf(view) };
  }

  return {
    /** The PDF a signed link names (`inv_…` or `cn_…`); undefined when this company has no such document. */
    async byId(companyId: string, documentId: string): Promise<DocumentFile | undefined> {
      if (documentId.startsWith('cn_')) {
        const note = await creditNoteById(db, companyId, documentId);
        return note && creditNoteFile(companyId, note);
      }
      const invoice = await invoiceById(db, companyId, documentId);
      return invoice && invoiceFile(companyId, invoice);
    },

    /** `invoice pdf <ref>` (staff): the order's invoice, or its credit note. */
    async forOrder(companyId: string, reference: string, which: 'invoice' | 'credit_note' = 'invoice'): Promise<DocumentFile> {
      const orderId = await views.orderIdOf(companyId, reference);
      const invoice = await findInvoice(db, companyId, orderId);
      if (!invoice) throw new AppError('validation_failed', `order ${reference} has no invoice yet`, [{ path: 'invoice', message: 'issue the invoice first' }]);
      if (which === 'invoice') return invoiceFile(companyId, (await invoiceById(db, companyId, invoice.id))!);
      const note = await findCreditNote(db, companyId, invoice.id);
      if (!note) throw notFound(`invoice ${invoice.invoice_number} has no credit note (only a cancelled or returned order gets one)`);
      return creditNoteFile(companyId, (await creditNoteById(db, companyId, note.id))!);
    },
  };
}

export type InvoiceFilesService = ReturnType<typeof createInvoiceFilesService>;
