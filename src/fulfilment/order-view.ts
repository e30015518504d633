import { creditNoteOut, invoiceOut } from '../contract/invoice-shape.js';
import { lineOut, shipmentOut } from '../contract/order-output.js';
import { orderStatusLabel } from '../contract/status-labels.js';
import type { Db } from '../db/index.js';
import { notFound } from '../contract/errors.js';
import { money } from '../lib/money.js';
import { iso } from '../lib/time.js';
import { findCreditNote, findInvoice } from './billing.queries.js';
import { findOrderHistory, findOrderIdForStaff, findOrderParticulars, findShipment, readOrder } from './fulfilment.queries.js';

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
      cod_confirmation: o.cod_confirmation,
      shipment: s ? shipmentOut(s) : null,
      invoice: i ? { ...invoiceOut(i, clock(), !!cn), credit_note: cn ? creditNoteOut(cn) : null } : null,
    };
  }

  /**
   * `order show`: the view with what a person needs to act on the order: its customer (personal data, shown to
   * staff, never logged), its lines and its history, one entry per order event.
   */
  async function detail(companyId: string, reference: string) {
    const orderId = await orderIdOf(companyId, reference);
    const v = await view(companyId, orderId);
    const p = await findOrderParticulars(db, companyId, orderId);
    if (!p) throw notFound(`order ${orderId} vanished`);
    const history = await findOrderHistory(db, companyId, orderId);
    return {
      ...v,
      external_reference: p.external_reference,
      created_at: iso(p.created_at),
      customer: { name: p.customer.name, phone: p.customer.phone_e164, email: p.customer.email },
      items: p.lines.map((l) => ({ ...lineOut(l), tax_rate: l.tax_rate })),
      history: history.map((h) => ({
        at: iso(h.created_at),
        event: h.type,
        order_status: h.order_status,
        shipment_status: h.shipment_status,
        payment_status: h.payment_status,
      })),
    };
  }

  return { orderIdOf, view, detail };
}

export type OrderViews = ReturnType<typeof createOrderViews>;
