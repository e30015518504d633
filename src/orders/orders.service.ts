import type { Db } from '../db/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { AppError, notFound, validationError, type FieldIssue } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { Decimal, money, qty } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { resolveDeliveryState } from '../lib/pincode.js';
import { addressOnFile, type AddressFields } from '../customers/customers.service.js';
import { withRetry } from '../db/index.js';
import {
  findOrderById,
  findOrderByReference,
  findOrderIdByExternalReference,
  findOrderLines,
  orderPrelude,
  placeOrderAtomically,
  REFERENCE_TAKEN,
  type PlaceOrderWrite,
  type LineRow,
  type NewLine,
  type VariantRow,
} from './orders.queries.js';
import { orderNumbersFor, type OrderNumbers } from './order-numbers.js';
import { MAX_QUANTITY, parseQuantity, type Order, type OrderLookup, type PlaceOrderBody } from '../contract/orders.js';
import { insufficientStock, reservationLines } from './reservations.js';
import { lineOut, orderOut, shipmentOut, toOrderSummary } from '../contract/order-output.js';
import { invoiceOut } from '../fulfilment/invoices.js';
import type { ShipmentStatus } from '../couriers/types.js';

/** Largest amount the numeric(14,2) columns hold. */
const MAX_AMOUNT = new Decimal('999999999999.99');

export interface ResolvedLine extends NewLine {
  /** The first identifier the caller sent for this variant. */
  productId: string;
  quantityDec: Decimal;
}

/** A line as written, shaped like one read back (so the response needs no second read). */
const newLineOut = (l: NewLine): LineRow => ({ sku: l.sku, name: l.name, quantity: l.quantity, unit_price: l.unitPrice, line_total: l.lineTotal });

function lineName(v: VariantRow): string {
  return v.name && v.name !== v.product_name && v.name !== v.sku ? `${v.product_name} (${v.name})` : v.product_name;
}

/** Lines by variant: each product_id (SKU first, then variant_id, then barcode) to one variant; repeats merged. */
export function resolveLines(items: PlaceOrderBody['items'], variants: VariantRow[]): ResolvedLine[] {
  const bySku = new Map(variants.map((v) => [v.sku, v]));
  const byId = new Map(variants.map((v) => [v.id, v]));
  const byBarcode = new Map(variants.filter((v) => v.barcode).map((v) => [v.barcode!, v]));
  const missing: string[] = [];
  const lines = new Map<string, ResolvedLine>();
  const overBound: FieldIssue[] = [];
  for (const [index, item] of items.entries()) {
    const v = bySku.get(item.product_id) ?? byId.get(item.product_id) ?? byBarcode.get(item.product_id);
    if (!v || !v.for_sale) {
      if (!missing.includes(item.product_id)) missing.push(item.product_id);
      continue;
    }
    const quantity = parseQuantity(item.quantity);
    if (quantity === null) throw validationError([{ path: 'items', message: 'quantity must be greater than 0 with at most 3 decimals' }]);
    const line = lines.get(v.id);
    if (line) {
      // A merged line is one line: it has the same bound as a single one (reported once, at the line that crossed it).
      const within = line.quantityDec.lte(MAX_QUANTITY);
      line.quantityDec = line.quantityDec.plus(quantity);
      if (within && line.quantityDec.gt(MAX_QUANTITY)) {
        overBound.push({
          path: `items[${index}].quantity`,
          message: `lines naming ${v.sku} are merged into one line of ${qty(line.quantityDec)}; a line may be at most ${MAX_QUANTITY}`,
        });
      }
    } else
      lines.set(v.id, {
        variantId: v.id,
        productId: item.product_id,
        sku: v.sku,
        name: lineName(v),
        quantityDec: quantity,
        quantity: '',
        unitPrice: money(v.selling_price),
        lineTotal: '',
        taxRate: v.tax_rate,
      });
  }
  if (overBound.length > 0) throw validationError(overBound);
  if (missing.length > 0) {
    throw notFound(
      `${missing.length === 1 ? 'item' : 'items'} not found or not for sale: ${missing.join(', ')}; send a variant's sku (or variant_id or barcode) from GET /catalog/products`,
      missing,
    );
  }
  for (const line of lines.values()) {
    line.quantity = qty(line.quantityDec);
    line.lineTotal = money(new Decimal(line.unitPrice).times(line.quantityDec).toDecimalPlaces(2, Decimal.ROUND_HALF_UP));
  }
  return [...lines.values()];
}

/** The order's delivery address with its state resolved from the PIN, or a 400 naming the field. */
export function deliveryAddress(a: NonNullable<PlaceOrderBody['delivery_address']>): AddressFields {
  const issues: FieldIssue[] = [];
  const state = resolveDeliveryState(a.pincode, a.state);
  if (!state.ok) issues.push({ path: 'delivery_address.state', message: state.message });
  let phone: string | null = null;
  if (a.phone) {
    const p = normalizePhone(a.phone);
    if (p.ok) phone = p.e164;
    else issues.push({ path: 'delivery_address.phone', message: p.message });
  }
  if (!state.ok || issues.length > 0) throw validationError(issues);
  return { name: a.name || null, line1: a.line1, line2: a.line2 || null, city: a.city, state: state.state, pincode: a.pincode, phone };
}

/**
 * POST /orders with the external_reference of a staff draft: the reference is taken, nothing is placed, and a
 * draft is never shown through the API. 422 `unprocessable` (see docs/decisions.md, issue 12).
 */
export const referenceHeldByDraft = (reference: string) =>
  new AppError(
    'unprocessable',
    `external_reference "${reference}" belongs to an order staff are preparing; nothing was placed; send a new external_reference for this order`,
    [{ path: 'external_reference', message: 'taken by an order staff are preparing; use a new one' }],
  );

/** `clock` decides when an invoice counts as overdue (tests pass their own). */
export function createOrderService({ db, clock = () => new Date(), orderNumbers = orderNumbersFor(db) }: { db: Db; clock?: () => Date; orderNumbers?: OrderNumbers }) {
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
    async place(tenant: Tenant, body: PlaceOrderBody): Promise<{ order: Order; duplicate: boolean }> {
      const companyId = tenant.companyId;
      const phone = normalizePhone(body.customer.phone);
      const identifiers = [...new Set(body.items.map((i) => i.product_id))];
      const prelude = await orderPrelude(db, companyId, body.external_reference, identifiers, phone.ok ? phone.e164 : '');
      // A repeat answers with the original before anything else is checked (stock or items may have changed since).
      if (prelude.existing_order_id) return duplicateOf(companyId, prelude.existing_order_id, body.external_reference);

      if (!phone.ok) throw validationError([{ path: 'customer.phone', message: phone.message }]);
      const given = body.delivery_address ? deliveryAddress(body.delivery_address) : null;
      const lines = resolveLines(body.items, prelude.variants);
      const amount = lines.reduce((sum, l) => sum.plus(l.lineTotal), new Decimal(0));
      if (amount.gt(MAX_AMOUNT)) throw validationError([{ path: 'items', message: `the order total ${money(amount)} is larger than allowed` }]);
      if (!prelude.location_id) throw new AppError('unprocessable', 'the company has no active stock location to ship orders from; nothing was created');

      const address = given ?? (prelude.customer ? addressOnFile(prelude.customer) : null);
      const write: PlaceOrderWrite = {
        customer: { id: newId('cus'), name: body.customer.name, phone_e164: phone.e164, email: body.customer.email || null, address: given },
        order: {
          id: newId('ord'),
          // Taken last, after every check that needs no write, and outside the order's transaction.
          order_number: await orderNumbers.next(companyId),
          external_reference: body.external_reference,
          payment: body.payment,
          payment_reference: body.payment_reference || null,
          notes: body.notes || null,
          amount: money(amount),
          delivery_address: address,
          location_id: prelude.location_id,
        },
        lines: lines.map((l) => ({ variant_id: l.variantId, sku: l.sku, name: l.name, quantity: l.quantity, unit_price: l.unitPrice, line_total: l.lineTotal, tax_rate: l.taxRate })),
        reservations: reservationLines(lines.map((l) => ({ variantId: l.variantId, quantity: l.quantityDec, productId: l.productId }))),
        booking_job_id: address && prelude.auto_courier_booking ? newId('job') : null,
      };
      try {
        const row = await withRetry(() => placeOrderAtomically(db, companyId, write));
        return { order: orderOut(row, lines.map(newLineOut)), duplicate: false };
      } catch (err) {
        const short = insufficientStock(err);
        if (short) throw short;
        if ((err as { code?: string }).code !== REFERENCE_TAKEN) throw err;
        // A concurrent first attempt with this reference committed while we waited: answer with its order.
        const original = await findOrderIdByExternalReference(db, companyId, body.external_reference);
        if (!original) throw new Error('external_reference conflicted but the order cannot be read');
        return duplicateOf(companyId, original, body.external_reference);
      }
    },

    /** GET /orders/{reference}: by number, id or external_reference; with a phone, only that customer's order. */
    async lookup(tenant: Tenant, reference: string, phone?: string): Promise<OrderLookup> {
      const unknown = () => notFound(`no order "${reference}" in this company; look it up by order number, order_id or your external_reference`);
      let phoneE164: string | null = null;
      if (phone !== undefined) {
        // An unusable phone matches no customer: the same 404, so the order's existence is not revealed.
        const p = normalizePhone(phone);
        if (!p.ok) throw unknown();
        phoneE164 = p.e164;
      }
      const o = await findOrderByReference(db, tenant.companyId, reference, phoneE164);
      if (!o) throw unknown();
      const lines = await findOrderLines(db, tenant.companyId, o.id);
      return {
        ...toOrderSummary(o),
        customer: { name: o.customer_name, phone: o.customer_phone },
        items: lines.map(lineOut),
        shipment: o.shipment_status
          ? shipmentOut({ awb: o.shipment_awb, courier: o.shipment_courier, status: o.shipment_status as ShipmentStatus, tracking_url: o.shipment_tracking_url, delivered_at: o.shipment_delivered_at })
          : null,
        invoice:
          o.invoice_number && o.invoice_total !== null && o.invoice_amount_paid !== null && o.invoice_due_at
            ? invoiceOut({ invoice_number: o.invoice_number, total: o.invoice_total, amount_paid: o.invoice_amount_paid, due_at: o.invoice_due_at }, clock())
            : null,
      };
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
