import type { Db } from '../db/index.js';
import type { CustomerData } from '../contract/privacy.js';
import {
  checkoutsOf,
  consentHistory,
  creditNotesOf,
  eventsAbout,
  invoicesOf,
  linesOf,
  ordersOfCustomer,
  paymentLinksOf,
  paymentsOf,
  shipmentsOf,
  type RightsCustomer,
} from './privacy.queries.js';
import { buyerMatch } from './scrub.js';

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));

/** A stored JSON document as an object (an event's data and a checkout's buyer are objects; anything else is wrapped). */
function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

function parseJson(text: string): Record<string, unknown> {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return { value: text };
  }
}

/**
 * The access document (DPDP Act s.11): everything the company holds about the customer, read in the caller's
 * transaction: the record, consent history, every order (lines, delivery address, shipment and its events, invoice and
 * credit note, payments, payment links, COD confirmation), the checkout sessions of its orders and its open ones, and the
 * events about the customer and its orders.
 */
export async function customerData(db: Db, companyId: string, c: RightsCustomer, now: Date): Promise<CustomerData> {
  const orders = await ordersOfCustomer(db, companyId, c.id);
  const orderIds = orders.map((o) => o.id);
  // one after another: the reads share the caller's transaction, so its one connection (pg queues, and warns, otherwise)
  const consents = await consentHistory(db, companyId, c.id);
  const lines = await linesOf(db, companyId, orderIds);
  const shipments = await shipmentsOf(db, companyId, orderIds);
  const invoices = await invoicesOf(db, companyId, orderIds);
  const links = await paymentLinksOf(db, companyId, orderIds);
  const checkouts = await checkoutsOf(db, companyId, orderIds, buyerMatch([c.phone_e164], [c.email]));
  const invoiceIds = invoices.map((i) => i.id);
  const notes = await creditNotesOf(db, companyId, invoiceIds);
  const payments = await paymentsOf(db, companyId, invoiceIds);
  const events = await eventsAbout(db, companyId, [c.id, ...orderIds, ...checkouts.map((s) => s.id)]);
  return {
    generated_at: now.toISOString(),
    customer: {
      customer_id: c.id,
      name: c.name,
      phone: c.phone_e164,
      email: c.email,
      address: c.address_line1
        ? {
            name: c.address_name,
            line1: c.address_line1,
            line2: c.address_line2,
            city: c.city ?? '',
            state: c.state ?? '',
            pincode: c.pincode ?? '',
            phone: c.address_phone,
          }
        : null,
      messaging_opted_out: c.messaging_opted_out,
      created_at: iso(c.created_at),
      updated_at: iso(c.updated_at),
      erased_at: isoOrNull(c.erased_at),
    },
    consents: consents.map((r) => ({ purpose: r.purpose, channel: r.channel, state: r.state, source: r.source, recorded_at: iso(r.recorded_at) })),
    orders: orders.map((o) => {
      const shipment = shipments.find((s) => s.order_id === o.id);
      const invoice = invoices.find((i) => i.order_id === o.id);
      const note = invoice ? notes.find((n) => n.invoice_id === invoice.id) : undefined;
      return {
        order_id: o.id,
        order_number: o.order_number,
        external_reference: o.external_reference,
        status: o.status,
        payment: o.payment,
        payment_reference: o.payment_reference,
        notes: o.notes,
        amount: o.amount,
        discount_amount: o.discount_amount,
        shipping_amount: o.shipping_amount,
        currency: o.currency,
        delivery_address: o.delivery_address,
        cod_confirmation: o.cod_confirmation ? { status: o.cod_confirmation, settled_by: o.cod_confirmation_settled_by } : null,
        created_at: iso(o.created_at),
        lines: lines
          .filter((l) => l.order_id === o.id)
          .map((l) => ({ sku: l.sku, name: l.name, quantity: l.quantity, unit_price: l.unit_price, line_total: l.line_total })),
        shipment: shipment
          ? {
              courier: shipment.courier,
              awb: shipment.awb,
              status: shipment.status,
              tracking_url: shipment.tracking_url,
              delivered_at: isoOrNull(shipment.delivered_at),
              events: shipment.events.map((e) => ({ status: e.status, source: e.source, note: e.note, at: iso(e.at) })),
            }
          : null,
        invoice: invoice
          ? {
              invoice_number: invoice.invoice_number,
              total: invoice.total,
              amount_paid: invoice.amount_paid,
              issued_at: iso(invoice.issued_at),
              credit_note: note
                ? { credit_note_number: note.credit_note_number, reason: note.reason, total: note.total, issued_at: iso(note.issued_at) }
                : null,
              payments: payments
                .filter((p) => p.invoice_id === invoice.id)
                .map((p) => ({ amount: p.amount, method: p.method, reference: p.reference, recorded_at: iso(p.recorded_at) })),
            }
          : null,
        payment_links: links
          .filter((l) => l.order_id === o.id)
          .map((l) => ({
            short_url: l.short_url,
            amount: l.amount,
            status: l.status,
            expires_at: isoOrNull(l.expires_at),
            paid_at: isoOrNull(l.paid_at),
            created_at: iso(l.created_at),
          })),
      };
    }),
    checkout_sessions: checkouts.map((s) => ({
      checkout_id: s.id,
      status: s.status,
      order_id: s.order_id,
      buyer: s.buyer == null ? null : asObject(s.buyer),
      fulfillment: s.fulfillment == null ? null : asObject(s.fulfillment),
      created_at: iso(s.created_at),
      updated_at: iso(s.updated_at),
    })),
    events: events.map((e) => ({ event_id: e.id, type: e.type, subject_id: e.subject_id, created_at: iso(e.created_at), data: parseJson(e.data) })),
  };
}
