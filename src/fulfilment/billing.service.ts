import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { findTaxProfile } from '../companies/companies.queries.js';
import { AppError, validationError } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { Decimal, money } from '../lib/money.js';
import { recordOrderEvent } from '../orders/order-events.js';
import { lockOrder } from './fulfilment.queries.js';
import { buildInvoiceDocument } from './invoice-document.js';
import {
  addInvoicePaid,
  findCreditNote,
  findInvoice,
  insertCreditNote,
  insertDeliveryPayment,
  insertInvoice,
  insertPayment,
  lockInvoiceForDeliveryCash,
  lockInvoiceForPayment,
  lockShipmentPayment,
  replaceInvoicePaid,
  setPaymentAmount,
  takeCreditNoteNumber,
  takeInvoiceNumber,
  type OrderInvoice,
} from './billing.queries.js';
import type { OrderViews } from './order-view.js';

/** Billing: invoices (GST series per financial year) and payments. The *Tx functions run inside a caller's transaction. */

const IST_OFFSET_MS = 330 * 60 * 1000;

/** Indian financial year (April–March, in India's time) of a moment: "2026-27". */
export function financialYear(at: Date): string {
  const ist = new Date(at.getTime() + IST_OFFSET_MS);
  const start = ist.getUTCMonth() >= 3 ? ist.getUTCFullYear() : ist.getUTCFullYear() - 1;
  return `${start}-${String((start + 1) % 100).padStart(2, '0')}`;
}

/** GST caps an invoice (or credit note) number at 16 characters. */
export const MAX_DOCUMENT_NUMBER_LENGTH = 16;

/**
 * `INV/26-27/000001`: the series prefix, the financial year in two-digit years and the serial (at least six digits).
 * Invoices issued before 0016 keep their `INV/2026-27/000001` numbers; the serial carries on from the same counter.
 */
export function formatDocumentNumber(prefix: string, fy: string, n: number): string {
  const number = `${prefix}/${fy.slice(2)}/${String(n).padStart(6, '0')}`;
  if (number.length > MAX_DOCUMENT_NUMBER_LENGTH)
    throw new AppError('unprocessable', `the ${prefix} series of ${fy} is full: ${number} would be over ${MAX_DOCUMENT_NUMBER_LENGTH} characters`);
  return number;
}

/** Credit notes' own series. */
export const CREDIT_NOTE_PREFIX = 'CN';

/**
 * Issues the order's invoice inside the caller's transaction (the order row is already locked), or returns
 * the one it has. The number comes from the (company, FY) counter row, incremented under its row lock by
 * the upsert and held to commit: concurrent issues queue, a rollback gives the number back, so the series
 * has no gaps. A prepaid order's invoice is paid on issue.
 */
export async function issueInvoiceTx(
  tx: Db,
  companyId: string,
  order: { id: string; amount: string; payment: 'cod' | 'prepaid'; payment_reference: string | null },
  now: Date,
  dueDays: number,
): Promise<OrderInvoice> {
  const existing = await findInvoice(tx, companyId, order.id, true);
  if (existing) return existing;
  const fy = financialYear(now);
  // Built before the counter is taken: the counter row stays locked only for the insert.
  const profile = await findTaxProfile(tx, companyId);
  const document = await buildInvoiceDocument(tx, companyId, order.id, profile);
  const prefix = profile?.invoice_prefix ?? 'INV';
  const serial = await takeInvoiceNumber(tx, companyId, fy);
  const id = newId('inv');
  const dueAt = new Date(now.getTime() + dueDays * 24 * 60 * 60 * 1000);
  await insertInvoice(tx, companyId, {
    id,
    orderId: order.id,
    number: formatDocumentNumber(prefix, fy, serial),
    financialYear: fy,
    total: money(order.amount),
    issuedAt: now,
    dueAt,
    document,
  });
  await recordOrderEvent(tx, companyId, 'invoice.issued', order.id, now);
  if (order.payment === 'prepaid' && new Decimal(order.amount).gt(0)) {
    await recordPaymentTx(tx, companyId, id, new Decimal(order.amount), 'prepaid', order.payment_reference, now);
  }
  return (await findInvoice(tx, companyId, order.id))!;
}

/**
 * A cancelled or returned order that was invoiced gets a credit note reversing the invoice whole, numbered from its
 * own (company, FY) counter under the same row-lock rule as invoices; inside the caller's transaction, the order row
 * locked. Nothing happens for an order without an invoice, or one already credited.
 */
export async function issueCreditNoteTx(tx: Db, companyId: string, orderId: string, reason: 'cancelled' | 'returned', now: Date): Promise<void> {
  const invoice = await findInvoice(tx, companyId, orderId, true);
  if (!invoice || (await findCreditNote(tx, companyId, invoice.id))) return;
  const fy = financialYear(now);
  const serial = await takeCreditNoteNumber(tx, companyId, fy);
  await insertCreditNote(tx, companyId, {
    id: newId('cn'),
    invoiceId: invoice.id,
    number: formatDocumentNumber(CREDIT_NOTE_PREFIX, fy, serial),
    financialYear: fy,
    reason,
    total: money(invoice.total),
    issuedAt: now,
  });
}

/** Adds a payment (partial allowed) to an invoice under its row lock; more than is owed is refused. */
export async function recordPaymentTx(
  tx: Db,
  companyId: string,
  invoiceId: string,
  amount: Decimal,
  method: 'prepaid' | 'cod' | 'manual',
  reference: string | null,
  now: Date,
): Promise<void> {
  const inv = await lockInvoiceForPayment(tx, companyId, invoiceId);
  if (!inv) throw new AppError('not_found', `no invoice ${invoiceId}`);
  const due = new Decimal(inv.total).minus(inv.amount_paid);
  if (amount.lte(0) || amount.decimalPlaces() > 2) throw validationError([{ path: 'amount', message: 'must be greater than 0 with at most 2 decimals' }]);
  if (due.isZero()) throw new AppError('validation_failed', `invoice ${inv.invoice_number} is already paid in full`);
  if (amount.gt(due)) throw validationError([{ path: 'amount', message: `is more than the ${money(due)} still owed on ${inv.invoice_number}` }]);
  await insertPayment(tx, companyId, { id: newId('pay'), invoiceId, amount: money(amount), method, reference, recordedAt: now });
  await addInvoicePaid(tx, companyId, invoiceId, money(amount));
  await recordOrderEvent(tx, companyId, 'payment.recorded', inv.order_id, now);
}

/**
 * The cash a courier collected at one delivery, as one fact per shipment: the shipment's COD payment is *set*
 * to what was collected (never added to), capped at what the invoice still owes apart from that payment.
 * `true` means "collected what was owed": recorded once; a repeat keeps what was recorded. Runs under the
 * invoice's and the payment's row locks (callers hold the order's lock first), so repeats in parallel
 * queue and the later ones find the fact already set. Answers whether anything changed.
 */
export async function setDeliveryCashTx(
  tx: Db,
  companyId: string,
  invoiceId: string,
  shipmentId: string,
  collected: true | Decimal,
  reference: string | null,
  now: Date,
): Promise<{ changed: boolean; recorded: Decimal }> {
  const inv = await lockInvoiceForDeliveryCash(tx, companyId, invoiceId);
  if (!inv) throw new AppError('not_found', `no invoice ${invoiceId}`);
  const existing = await lockShipmentPayment(tx, companyId, shipmentId);
  const mine = new Decimal(existing?.amount ?? 0);
  const room = Decimal.max(new Decimal(inv.total).minus(new Decimal(inv.amount_paid).minus(mine)), 0);
  const target = collected === true ? (existing ? mine : room) : Decimal.min(collected, room);
  if (target.eq(mine) || target.lte(0)) return { changed: false, recorded: mine };
  if (existing) await setPaymentAmount(tx, companyId, existing.id, money(target), now);
  else await insertDeliveryPayment(tx, companyId, { id: newId('pay'), invoiceId, shipmentId, amount: money(target), reference, recordedAt: now });
  await replaceInvoicePaid(tx, companyId, invoiceId, money(mine), money(target));
  await recordOrderEvent(tx, companyId, 'payment.recorded', inv.order_id, now);
  return { changed: true, recorded: target };
}

/** invoice issue and payment record, for staff. */
export function createBillingService({ db, config, clock, views }: { db: Db; config: Pick<Config, 'INVOICE_DUE_DAYS'>; clock: () => Date; views: OrderViews }) {
  return {
    /** invoice issue <ref>: staff may issue before shipping (not for drafts or cancelled orders). */
    async issueInvoice(companyId: string, reference: string) {
      const orderId = await views.orderIdOf(companyId, reference);
      await db.tx(async (tx) => {
        const order = (await lockOrder(tx, companyId, orderId))!;
        if (order.status === 'draft' || order.status === 'cancelled')
          throw new AppError('validation_failed', `order ${order.order_number} is ${order.status}; no invoice is issued for it`);
        await issueInvoiceTx(tx, companyId, order, clock(), config.INVOICE_DUE_DAYS);
      });
      return views.view(companyId, orderId);
    },

    /** payment record <ref> <amount>: partial payments allowed, never more than is owed. */
    async recordPayment(companyId: string, reference: string, amountText: string, paymentReference: string | null = null) {
      if (!/^\d{1,12}(\.\d{1,2})?$/.test(amountText.trim()))
        throw validationError([{ path: 'amount', message: 'must be a positive amount with at most 2 decimals, e.g. 250 or 99.50' }]);
      const amount = new Decimal(amountText.trim());
      const orderId = await views.orderIdOf(companyId, reference);
      await db.tx(async (tx) => {
        await lockOrder(tx, companyId, orderId);
        const invoice = await findInvoice(tx, companyId, orderId);
        if (!invoice)
          throw new AppError('validation_failed', `order ${reference} has no invoice yet`, [{ path: 'invoice', message: 'issue the invoice first' }]);
        const credited = await findCreditNote(tx, companyId, invoice.id);
        if (credited)
          throw new AppError(
            'validation_failed',
            `invoice ${invoice.invoice_number} was reversed by credit note ${credited.credit_note_number}; nothing is owed on it`,
          );
        await recordPaymentTx(tx, companyId, invoice.id, amount, 'manual', paymentReference, clock());
      });
      return views.view(companyId, orderId);
    },
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
