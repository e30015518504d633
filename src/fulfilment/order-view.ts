import { creditNoteOut, invoiceOut } from '../contract/invoice-shape.js';
import { shipmentOut } from '../contract/order-output.js';
import { orderStatusLabel } from '../contract/status-labels.js';
import type { Db } from '../db/index.js';
import { notFound } from '../contract/errors.js';
import { money } from '../lib/money.js';
import { findCreditNote, findInvoice } from './billing.queries.js';
import { findOrderIdForStaff, findShipment, readOrder } from './fulfilment.queries.js';

/** How staff name an order and what they see after a command; shared by the fulfilment services. */
export function createOrderViews({ db, clock }: { db: Db; clock: () => Date }) {
  async function orderIdOf(companyId: string, reference: string): Promise<string> {
    const id = await findOrderIdForStaff(db, companyId, reference);
    if (!id) throw notFound(`no order "${reference}" in this company`);
    return id;
  }

  /** What staff see after a command: status, shipment and invoice in the lookup's shapes. */
  async function view(companyId: string, orderId: string) {
    const o = await readOrder(db, companyId, orderId);
    if (!o) throw notFound(`order ${orderId} vanished`);
    const s = await findShipment(db, companyId, orderId);
    const i = await findInvoice(db, companyId, orderId);
    const cn = i ? await findCreditNote(db, companyId, i.id) : undefined;
    return {
      order_id: o.id,
      order_number: o.order_number,
      order_status: o.status,
      status_label: orderStatusLabel(o.status),
      amount: money(o.amount),
      payment: o.payment,
      delivery_address: o.delivery_address,
      shipment: s ? shipmentOut(s) : null,
      invoice: i ? { ...invoiceOut(i, clock(), !!cn), credit_note: cn ? creditNoteOut(cn) : null } : null,
    };
  }

  return { orderIdOf, view };
}

export type OrderViews = ReturnType<typeof createOrderViews>;
