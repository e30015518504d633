import { recogniseCustomer } from '../customers/customers.service.js';
import { withRetry, type Db } from '../db/index.js';
import { validationError } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { Decimal, money } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { deliveryAddress, resolveLines } from './order-input.js';
import { orderNumbersFor, type OrderNumbers } from './order-numbers.js';
import {
  allocateOrderNumbers,
  findVariantsByIdentifiers,
  insertDraftOrder,
  insertOrderLines,
  placeOrderAtomically,
  type OrderRow,
  type PlacedEvent,
  type PlaceOrderWrite,
} from './orders.queries.js';
import type { DraftOrderBody, OrderLookup } from '../contract/orders.js';
import { lineOut } from '../contract/order-output.js';
import { orderStatusLabel } from '../contract/status-labels.js';
import { eventMessages } from './whatsapp-messages.js';
import { findMessagingContext, type MessagingContext } from './whatsapp.queries.js';

const NOTHING_YET = { order_updates: { messaging: false, email: false }, marketing: { messaging: false, email: false } };

/**
 * The order.created event's data as the lookup would show the new order; place_order_with_event() fills in
 * `order_date` and `customer` (name on file, phone, opt-out), which only the statement knows.
 */
function createdEvent(w: PlaceOrderWrite, messaging: MessagingContext): PlacedEvent {
  const data: OrderLookup = {
    order_id: w.order.id,
    order_number: w.order.order_number,
    order_status: 'confirmed',
    status_label: orderStatusLabel('confirmed'),
    amount: money(w.order.amount),
    currency: 'INR',
    order_date: '',
    external_reference: w.order.external_reference,
    // place_order_with_event() writes the customer as recorded, its opt-out and what may be sent to it
    customer: { name: w.customer.name, phone: w.customer.phone_e164, messaging_opted_out: false, may_send: NOTHING_YET },
    items: w.lines.map(lineOut),
    shipment: null,
    invoice: null,
    cod_confirmation: null, // place_order_with_event() puts the one place_order() asked for
  };
  // a new order has no payment link yet; its lines carry their rates and shares of shipping and discount
  const facts = {
    ...messaging,
    payment: w.order.payment,
    discount_amount: w.order.discount_amount,
    shipping_amount: w.order.shipping_amount,
    lines: w.lines.map((l) => ({ tax_rate: l.tax_rate, discount: l.discount, shipping: l.shipping })),
    payment_link: null,
  };
  return { id: newId('evt'), data, whatsapp: eventMessages(data, facts, true), cod_requested_id: newId('evt') };
}

/** What POST /orders decided, everything but the order number (the writer takes it). */
export type PlaceOrderInput = Omit<PlaceOrderWrite, 'order'> & { order: Omit<PlaceOrderWrite['order'], 'order_number'> };

/**
 * The one module that writes orders: POST /orders (place_order(), src/db/functions/place_order.sql) and staff drafts.
 * Both take their number here, from the process's one allocator (OrderNumbers.next), outside the transaction.
 */
export function createOrderWriter({ db, orderNumbers = orderNumbersFor(db) }: { db: Db; orderNumbers?: OrderNumbers }) {
  return {
    /**
     * Writes a placed order, its customer, lines, job and reservations in one statement (retried on deadlock). With
     * `checkout_id`, the order completes that checkout and takes its held stock (place_order() says how).
     * Throws what place_order() raises: CS200 (reference taken), CS409 (short stock).
     */
    async place(companyId: string, input: PlaceOrderInput, messaging?: MessagingContext): Promise<OrderRow> {
      // POST /orders read the messaging context in its prelude; a completed checkout reads it here.
      const context = messaging ?? (await findMessagingContext(db, companyId));
      // Taken last, after every check that needs no write, and outside the order's transaction.
      const write: PlaceOrderWrite = { ...input, order: { ...input.order, order_number: await orderNumbers.next(companyId) } };
      return withRetry(() => placeOrderAtomically(db, companyId, write, createdEvent(write, context)));
    },

    /**
     * The same write inside the caller's transaction (a payment's webhook completing a checkout, under its event's
     * lock): the number is taken in that transaction too (the process's blocks are refilled on another connection,
     * which one embedded connection could not give while this transaction holds it), and a deadlock is not retried
     * here but rolls the caller's transaction back.
     */
    async placeIn(tx: Db, companyId: string, input: PlaceOrderInput): Promise<OrderRow> {
      const write: PlaceOrderWrite = { ...input, order: { ...input.order, order_number: `ORD-${await allocateOrderNumbers(tx, companyId, 1)}` } };
      return placeOrderAtomically(tx, companyId, write, createdEvent(write, await findMessagingContext(tx, companyId)));
    },

    /** A staff draft: no reservation, invisible to the API until confirmed. Prices copied from the catalogue now. Returns its id. */
    async draft(companyId: string, body: DraftOrderBody): Promise<string> {
      const phone = normalizePhone(body.customer.phone);
      if (!phone.ok) throw validationError([{ path: 'customer.phone', message: phone.message }]);
      const given = body.delivery_address ? deliveryAddress(body.delivery_address) : null;
      const identifiers = [...new Set(body.items.map((i) => i.product_id))];
      const lines = resolveLines(body.items, await findVariantsByIdentifiers(db, companyId, identifiers));
      const amount = lines.reduce((sum, l) => sum.plus(l.lineTotal), new Decimal(0));
      const id = newId('ord');
      const orderNumber = await orderNumbers.next(companyId); // before the transaction: see OrderNumbers.next
      await db.tx(async (tx) => {
        const customer = await recogniseCustomer(tx, companyId, {
          name: body.customer.name,
          phoneE164: phone.e164,
          email: body.customer.email || null,
          address: given,
        });
        const written = await insertDraftOrder(tx, companyId, {
          id,
          orderNumber,
          externalReference: body.external_reference ?? null,
          customerId: customer.id,
          payment: body.payment,
          paymentReference: body.payment_reference || null,
          notes: body.notes || null,
          amount: money(amount),
          deliveryAddress: given,
        });
        if (!written) throw validationError([{ path: 'external_reference', message: 'already used by another order of this company' }]);
        await insertOrderLines(tx, companyId, id, lines);
      });
      return id;
    },
  };
}

export type OrderWriter = ReturnType<typeof createOrderWriter>;
