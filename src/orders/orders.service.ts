import type { Db } from '../db/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { AppError, validationError } from '../contract/errors.js';
import { tenantReader } from '../keys/key-check.js';
import { newId } from '../lib/ids.js';
import { Decimal, money } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { addressOnFile } from '../customers/customers.service.js';
import type { MediaService } from '../media/media.service.js';
import { orderOut } from '../contract/order-output.js';
import { deliveryAddress, resolveLines } from './order-input.js';
import { createOrderWriter, type PlaceOrderInput } from './order-writer.js';
import { lookupPhone, orderLookupByReference, unknownOrder } from './order-events.js';
import { messagingContext } from './whatsapp.queries.js';
import {
  findOrderById,
  findOrderIdByExternalReference,
  findOrderLines,
  orderPrelude,
  REFERENCE_TAKEN,
  type LineRow,
  type NewLine,
  type OrderConsent,
} from './orders.queries.js';
import { orderNumbersFor, type OrderNumbers } from './order-numbers.js';
import type { Order, OrderLookup, PlaceOrderBody } from '../contract/orders.js';
import { insufficientStock, reservationLines } from './reservations.js';

/** A line as written, shaped like one read back (so the response needs no second read). */
const newLineOut = (l: NewLine): LineRow => ({ sku: l.sku, name: l.name, quantity: l.quantity, unit_price: l.unitPrice, line_total: l.lineTotal });

/**
 * POST /orders with the external_reference of a staff draft: the reference is taken, nothing is placed, and a
 * draft is never shown through the API. 422 `unprocessable` (see docs/decisions.md).
 */
export const referenceHeldByDraft = (reference: string) =>
  new AppError(
    'unprocessable',
    `external_reference "${reference}" belongs to an order staff are preparing; nothing was placed; send a new external_reference for this order`,
    [{ path: 'external_reference', message: 'taken by an order staff are preparing; use a new one' }],
  );

/**
 * The company's COD rules (src/cod/cod-rules.service.ts `refuseBroken`, wired in services.ts): throws 422 when a COD
 * order breaks one. Handed in, so orders do not depend on the COD flows built on top of them.
 */
export interface CodRulesGate {
  refuseBroken(companyId: string, order: { pincode: string | null; pincodePath: string; amount: Decimal; phoneE164: string }): Promise<void>;
}

/** The marketing answers of an order as consent rows (true: given, false: withdrawn, absent: none); order updates need none. */
function marketingConsents(answer: PlaceOrderBody['marketing_consent'], source: OrderConsent['source'], actor: string): OrderConsent[] {
  return (['messaging', 'email'] as const).flatMap((channel) => {
    const given = answer?.[channel];
    return typeof given === 'boolean'
      ? [{ id: newId('cns'), purpose: 'marketing' as const, channel, state: given ? ('given' as const) : ('withdrawn' as const), source, actor }]
      : [];
  });
}

/** `clock` decides when an invoice counts as overdue (tests pass their own); `media` signs the invoice links. */
export function createOrderService({
  db,
  media,
  codRules,
  clock = () => new Date(),
  orderNumbers = orderNumbersFor(db),
}: {
  db: Db;
  media: Pick<MediaService, 'documentLinker'>;
  codRules: CodRulesGate;
  clock?: () => Date;
  orderNumbers?: OrderNumbers;
}) {
  const writer = createOrderWriter({ db, orderNumbers });
  async function loadOrder(dbOrTx: Db, companyId: string, orderId: string): Promise<Order> {
    const row = await findOrderById(dbOrTx, companyId, orderId);
    if (!row) throw new Error(`order ${orderId} vanished`);
    return orderOut(row, await findOrderLines(dbOrTx, companyId, orderId));
  }

  /** The order already placed with this reference, as a duplicate; a staff draft holding it is refused. */
  async function duplicateOf(companyId: string, orderId: string, reference: string): Promise<{ order: Order; duplicate: true }> {
    const order = await loadOrder(db, companyId, orderId);
    if (order.order_status === 'draft') throw referenceHeldByDraft(reference);
    return { order, duplicate: true };
  }

  return {
    /**
     * POST /orders. Prices and totals are computed first (they need no locks); then one transaction
     * recognises the customer, inserts the order (idempotent on external_reference), locks and reserves
     * stock, writes lines and the courier-booking job. Any refusal rolls the whole transaction back.
     */
    async place(tenant: Tenant, body: PlaceOrderBody, door: 'order' | 'place_order' = 'order'): Promise<{ order: Order; duplicate: boolean }> {
      const companyId = tenant.companyId;
      const phone = normalizePhone(body.customer.phone);
      const identifiers = [...new Set(body.items.map((i) => i.product_id))];
      const prelude = await orderPrelude(tenantReader(db, tenant), body.external_reference, identifiers, phone.ok ? phone.e164 : '');
      // A repeat answers with the original before anything else is checked (stock or items may have changed since).
      if (prelude.existing_order_id) return duplicateOf(companyId, prelude.existing_order_id, body.external_reference);

      if (!phone.ok) throw validationError([{ path: 'customer.phone', message: phone.message }]);
      const given = body.delivery_address ? deliveryAddress(body.delivery_address) : null;
      const lines = resolveLines(body.items, prelude.variants);
      const amount = lines.reduce((sum, l) => sum.plus(l.lineTotal), new Decimal(0));
      if (!prelude.location_id) throw new AppError('unprocessable', 'the company has no active stock location to ship orders from; nothing was created');

      const address = given ?? (prelude.customer ? addressOnFile(prelude.customer) : null);
      // COD only: one more read (the rules and the customer's returns to origin); a refusal writes nothing.
      if (body.payment === 'cod')
        await codRules.refuseBroken(companyId, {
          pincode: address?.pincode ?? null,
          pincodePath: given ? 'delivery_address.pincode' : 'delivery_address',
          amount,
          phoneE164: phone.e164,
        });
      const write: PlaceOrderInput = {
        customer: { id: newId('cus'), name: body.customer.name, phone_e164: phone.e164, email: body.customer.email || null, address: given },
        order: {
          id: newId('ord'),
          external_reference: body.external_reference,
          payment: body.payment,
          payment_reference: body.payment_reference || null,
          notes: body.notes || null,
          amount: money(amount),
          discount_amount: '0.00',
          shipping_amount: '0.00',
          delivery_address: address,
          location_id: prelude.location_id,
        },
        lines: lines.map((l) => ({
          variant_id: l.variantId,
          sku: l.sku,
          name: l.name,
          quantity: l.quantity,
          unit_price: l.unitPrice,
          line_total: l.lineTotal,
          tax_rate: l.taxRate,
          discount: '0.00',
          shipping: '0.00',
        })),
        reservations: reservationLines(lines.map((l) => ({ variantId: l.variantId, quantity: l.quantityDec, productId: l.productId }))),
        booking_job_id: address && prelude.auto_courier_booking ? newId('job') : null,
        consents: marketingConsents(body.marketing_consent, door, tenant.keyPrefix),
      };
      try {
        const row = await writer.place(companyId, write, messagingContext(prelude));
        return { order: orderOut(row, lines.map(newLineOut)), duplicate: false };
      } catch (err) {
        const short = insufficientStock(err);
        if (short) throw short;
        if ((err as { code?: string }).code !== REFERENCE_TAKEN) throw err;
        // A concurrent first attempt with this reference committed while we waited: answer with its order.
        const original = await findOrderIdByExternalReference(db, companyId, body.external_reference);
        if (!original) throw new Error('external_reference conflicted but the order cannot be read', { cause: err });
        return duplicateOf(companyId, original, body.external_reference);
      }
    },

    /**
     * GET /orders/{reference}: by number, id or external_reference; with a phone, only that customer's order. The
     * invoice and its credit note carry signed links to their PDFs on `origin`.
     */
    async lookup(tenant: Tenant, reference: string, phone: string | undefined, origin: string): Promise<OrderLookup> {
      const phoneE164 = lookupPhone(phone);
      const link = await media.documentLinker(origin);
      const order = await orderLookupByReference(tenantReader(db, tenant), reference, phoneE164, clock(), link);
      if (!order) throw unknownOrder();
      return order;
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
