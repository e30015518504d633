import type { CreditNoteRow } from '../db/schema/index.js';
import { Decimal, money } from '../lib/money.js';

export type PaymentStatus = 'unpaid' | 'partial' | 'paid' | 'overdue';
export type CreditNoteFields = Pick<CreditNoteRow, 'credit_note_number' | 'reason' | 'total' | 'issued_at'>;

/**
 * The lookup's `invoice` object (spec shape) without its links. Overdue is computed at read time from the due date:
 * nothing has to run at midnight. An invoice reversed by a credit note is owed nothing and never overdue; its status
 * says what was paid before the reversal (docs/decisions.md).
 */
export function invoiceOut(i: { invoice_number: string; total: string; amount_paid: string; due_at: Date }, now: Date, credited = false) {
  const owed = Decimal.max(new Decimal(i.total).minus(i.amount_paid), 0);
  const due = credited ? new Decimal(0) : owed;
  let status: PaymentStatus;
  if (owed.isZero()) status = 'paid';
  else if (!credited && now.getTime() > new Date(i.due_at).getTime()) status = 'overdue';
  else status = new Decimal(i.amount_paid).gt(0) ? 'partial' : 'unpaid';
  return { invoice_number: i.invoice_number, payment_status: status, total: money(i.total), amount_due: money(due) };
}

/** The lookup's `invoice.credit_note` without its link. */
export function creditNoteOut(c: CreditNoteFields) {
  return { credit_note_number: c.credit_note_number, reason: c.reason, total: money(c.total), issued_at: new Date(c.issued_at).toISOString() };
}
