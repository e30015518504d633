import type { Db } from '../db/index.js';
import { creditNoteOut, invoiceOut } from '../contract/invoice-shape.js';
import { lineOut, shipmentOut, toOrderSummary } from '../contract/order-output.js';
import type { OrderLookup } from '../contract/orders.js';
import type { EventType } from '../contract/webhooks.js';
import { recordEvent } from '../events/events.queries.js';
import { notFound } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { normalizePhone } from '../lib/phone.js';
import type { DocumentLinker } from '../media/media.service.js';
import { tenantReader, type TenantReader } from '../keys/key-check.js';
import { findOrderByReference, owePlatformOrderEvent } from './orders.queries.js';
import { eventMessages } from './whatsapp-messages.js';
import { findMessageFacts } from './whatsapp.queries.js';
import { consentStates, maySend } from '../customers/consents.js';

/**
 * The 404 of everything that finds an order as GET /orders/{reference} does: no such order, or not the given phone's
 * (the same answer, so an order's existence is not revealed). The reference is not repeated: an external reference may
 * hold a phone number (`wa-919812345678-1`), and this message reaches the request's log line.
 */
export const unknownOrder = () => notFound('no order with this reference in this company; look it up by order number, order_id or your external_reference');

/** The optional phone gate of GET /orders/{reference}: the phone in E.164, or null when none is given; an unusable phone matches no customer (the same 404). */
export function lookupPhone(phone: string | undefined): string | null {
  if (phone === undefined) return null;
  const p = normalizePhone(phone);
  if (!p.ok) throw unknownOrder();
  return p.e164;
}

/**
 * The order in the GET /orders/{reference} shape: the one rendering of the lookup, used by the lookup itself and by
 * every order event (so a consumer parses both alike). `now` decides whether an unpaid invoice counts as overdue.
 * `link` signs the invoice and credit-note PDF links of a lookup; an event has none (`url: null`, docs/decisions.md):
 * a link valid for 24 hours does not belong in a message that may be delivered or replayed days later. `reader` reads
 * for the requesting key (a lookup) or for the company alone (an event).
 */
export async function orderLookupByReference(
  reader: TenantReader,
  reference: string,
  phoneE164: string | null,
  now: Date,
  link: DocumentLinker | null = null,
): Promise<OrderLookup | undefined> {
  const { companyId } = reader;
  const o = await findOrderByReference(reader, reference, phoneE164);
  if (!o) return undefined;
  return {
    ...toOrderSummary(o),
    customer: {
      name: o.customer_name,
      phone: o.customer_phone,
      messaging_opted_out: o.customer_messaging_opted_out,
      may_send: maySend(consentStates(o.customer_consents), {
        erased: o.customer_erased_at !== null,
        messagingOptedOut: o.customer_messaging_opted_out,
      }),
    },
    items: o.lines.map(lineOut),
    shipment: o.shipment_status
      ? shipmentOut({
          awb: o.shipment_awb,
          courier: o.shipment_courier,
          status: o.shipment_status,
          tracking_url: o.shipment_tracking_url,
          delivered_at: o.shipment_delivered_at,
        })
      : null,
    invoice:
      o.invoice_id && o.invoice_number && o.invoice_total !== null && o.invoice_amount_paid !== null && o.invoice_due_at
        ? {
            ...invoiceOut(
              { invoice_number: o.invoice_number, total: o.invoice_total, amount_paid: o.invoice_amount_paid, due_at: o.invoice_due_at },
              now,
              o.credit_note_id !== null,
            ),
            url: link ? link(companyId, o.invoice_id) : null,
            credit_note:
              o.credit_note_id && o.credit_note_credit_note_number && o.credit_note_reason && o.credit_note_total && o.credit_note_issued_at
                ? {
                    ...creditNoteOut({
                      credit_note_number: o.credit_note_credit_note_number,
                      reason: o.credit_note_reason,
                      total: o.credit_note_total,
                      issued_at: o.credit_note_issued_at,
                    }),
                    url: link ? link(companyId, o.credit_note_id) : null,
                  }
                : null,
          }
        : null,
  };
}

/**
 * Records an order event in the caller's transaction (the outbox): the order as the lookup shows it at this point
 * of the transaction, so the event and the change commit together or not at all.
 */
export async function recordOrderEvent(tx: Db, companyId: string, type: Exclude<EventType, `customer.${string}`>, orderId: string, now: Date): Promise<void> {
  const data = await orderLookupByReference(tenantReader(tx, { companyId }), orderId, null, now);
  if (!data) throw new Error(`order ${orderId} cannot be read for its ${type} event`);
  await recordEvent(tx, companyId, {
    id: newId('evt'),
    type,
    subjectId: orderId,
    data,
    at: now,
    whatsapp: await eventWhatsapp(tx, companyId, type, data, now),
  });
  // an order a UCP checkout placed (its reference is the checkout): its platform hears of the move too
  const platformEvent = type === 'order.status_changed' ? PLATFORM_EVENTS[data.order_status] : undefined;
  if (platformEvent && data.external_reference?.startsWith('chk_')) await owePlatformOrderEvent(tx, companyId, orderId, data.external_reference, platformEvent);
}

/**
 * The WhatsApp messages an order.created or order.status_changed event carries beside `data` (docs/webhooks.md), built
 * as the event is written so a redelivery sends the same bytes; other order events carry none.
 */
async function eventWhatsapp(tx: Db, companyId: string, type: EventType, data: OrderLookup, now: Date) {
  if (type !== 'order.created' && type !== 'order.status_changed') return undefined;
  const facts = await findMessageFacts(tx, companyId, data.order_id, now);
  return facts ? eventMessages(data, facts, type === 'order.created') : undefined;
}

/** The UCP order event a status sends to the platform that placed the order (order_placed is sent by place_order()). */
const PLATFORM_EVENTS: Partial<Record<string, string>> = {
  shipped: 'order_shipped',
  delivered: 'order_delivered',
  cancelled: 'order_canceled',
  returned: 'order_returned',
};
