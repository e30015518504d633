import { Decimal, money } from '../lib/money.js';

export type PaymentStatus = 'unpaid' | 'partial' | 'paid' | 'overdue';

/** The lookup's `invoice` object (spec shape). Overdue is computed at read time from the due date: nothing has to run at midnight. */
export function invoiceOut(i: { invoice_number: string; total: string; amount_paid: string; due_at: Date }, now: Date) {
  const due = Decimal.max(new Decimal(i.total).minus(i.amount_paid), 0);
  let status: PaymentStatus;
  if (due.isZero()) status = 'paid';
  else if (now.getTime() > new Date(i.due_at).getTime()) status = 'overdue';
  else status = new Decimal(i.amount_paid).gt(0) ? 'partial' : 'unpaid';
  return { invoice_number: i.invoice_number, payment_status: status, total: money(i.total), amount_due: money(due) };
}
