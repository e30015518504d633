import { createHash } from 'node:crypto';
import type { Db } from '../db/index.js';
import { AppError, notFound } from '../contract/errors.js';
import { findTaxProfile } from '../companies/companies.queries.js';
import { findCreditNote, findInvoice } from './billing.queries.js';
import { buildInvoiceDocument, type InvoiceDocument } from './invoice-document.js';
import {
  creditNoteById,
  findDocumentFile,
  invoiceById,
  saveDocumentFile,
  type CreditNoteForPdf,
  type InvoiceForPdf,
  type StoredFile,
} from './invoice-files.queries.js';
import { renderInvoicePdf, type PdfView } from './invoice-pdf.js';
import type { OrderViews } from './order-view.js';

export interface DocumentFile {
  /** `INV-26-27-000001.pdf` */
  filename: string;
  pdf: Buffer;
  /** A strong entity tag of these bytes, quoted (`"…"`), for `ETag` and `If-None-Match`. */
  etag: string;
}

/** Where drawn PDFs are kept between fetches. */
export interface DocumentStore {
  find(companyId: string, documentId: string): Promise<StoredFile | undefined>;
  save(companyId: string, documentId: string, file: StoredFile): Promise<void>;
}

/** The `document_files` table (migration 0021): one row per document, replaced when it is drawn again. */
export function tableStore(db: Db): DocumentStore {
  return {
    find: (companyId, documentId) => findDocumentFile(db, companyId, documentId),
    save: (companyId, documentId, file) => saveDocumentFile(db, companyId, documentId, file),
  };
}

/**
 * Raised when invoice-pdf.ts draws the same view differently (layout, fonts): files drawn before are drawn again at
 * their next fetch, as their view hash no longer matches.
 */
const LAYOUT_VERSION = 1;

const fileName = (number: string) => `${number.replace(/[^A-Za-z0-9-]+/g, '-')}.pdf`;
/** pg reads bytea as a Buffer, PGlite as a Uint8Array: the same bytes either way, not copied. */
const asBuffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('base64url');
/** Everything the PDF shows, hashed: the document as issued, number, date, payment state, the invoice a note reverses. */
const viewHash = (view: PdfView) => sha256(JSON.stringify({ layout: LAYOUT_VERSION, view }));

/**
 * Invoices and credit notes as PDF files: for signed links (by document id) and for staff (by order). A document is
 * drawn once per view and its bytes kept (`store`); every later fetch reads the view's inputs (the invoice row, the
 * order's payment method), and serves the kept bytes while their hash matches. A payment recorded since changes the
 * view (the invoice shows its payment state), so that fetch draws it again, with a new ETag.
 */
export function createInvoiceFilesService({ db, views, store = tableStore(db) }: { db: Db; views: OrderViews; store?: DocumentStore }) {
  const counts = { drawn: 0, fromStore: 0 };
  /** Draws in progress in this process, by document and view: parallel first fetches of one link draw it once. */
  const drawing = new Map<string, Promise<StoredFile>>();

  /** The document as issued; an invoice issued before documents were stored has none and is drawn from today's data. */
  async function documentOf(companyId: string, invoice: InvoiceForPdf): Promise<InvoiceDocument> {
    return (invoice.document as InvoiceDocument | null) ?? buildInvoiceDocument(db, companyId, invoice.order_id, await findTaxProfile(db, companyId));
  }

  async function fileOf(companyId: string, documentId: string, number: string, view: PdfView): Promise<DocumentFile> {
    const hash = viewHash(view);
    const kept = await store.find(companyId, documentId);
    if (kept?.view_hash === hash) {
      counts.fromStore++;
      return { filename: fileName(number), pdf: asBuffer(kept.pdf), etag: kept.etag };
    }
    const key = `${companyId}/${documentId}/${hash}`;
    let drawn = drawing.get(key);
    if (!drawn) {
      drawn = (async () => {
        const pdf = await renderInvoicePdf(view);
        counts.drawn++;
        const file = { view_hash: hash, etag: `"${sha256(pdf)}"`, pdf };
        await store.save(companyId, documentId, file);
        return file;
      })().finally(() => drawing.delete(key));
      drawing.set(key, drawn);
    }
    const file = await drawn;
    return { filename: fileName(number), pdf: asBuffer(file.pdf), etag: file.etag };
  }

  async function invoiceFile(companyId: string, invoice: InvoiceForPdf): Promise<DocumentFile> {
    const view: PdfView = {
      kind: 'invoice',
      number: invoice.invoice_number,
      date: new Date(invoice.issued_at),
      document: await documentOf(companyId, invoice),
      payment: { method: invoice.payment, total: invoice.total, paid: invoice.amount_paid },
    };
    return fileOf(companyId, invoice.id, invoice.invoice_number, view);
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
    return fileOf(companyId, note.id, note.credit_note_number, view);
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

    /** PDFs drawn and PDFs served from the store by this process (what the benchmark and the tests count). */
    stats: () => ({ ...counts }),

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
