import type { AddressFields } from '../customers/customers.service.js';
import { notFound, validationError, type FieldIssue } from '../contract/errors.js';
import { Decimal, money, qty } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { resolveDeliveryState } from '../lib/pincode.js';
import { isWholeUnit, wholeNumberMessage } from '../lib/units.js';
import type { NewLine, OrderableVariant } from './orders.queries.js';
import { MAX_QUANTITY, parseQuantity, type PlaceOrderBody } from '../contract/orders.js';

/** What an order's input resolves to before anything is written (POST /orders and staff drafts alike). */

/** Largest amount the numeric(14,2) columns hold (orders.amount, order_lines.line_total, invoices.total). */
export const MAX_AMOUNT = new Decimal('999999999999.99');

export interface ResolvedLine extends NewLine {
  /** The first identifier the caller sent for this variant. */
  productId: string;
  quantityDec: Decimal;
}

function lineName(v: OrderableVariant): string {
  return v.name && v.name !== v.product_name && v.name !== v.sku ? `${v.product_name} (${v.name})` : v.product_name;
}

/**
 * Lines by variant: each product_id (SKU first, then variant_id, then barcode) to one variant; repeats merged. A
 * fraction of a counted unit, a merged line past MAX_QUANTITY and an order total past MAX_AMOUNT are refused at the
 * item's quantity (400), before anything is written; unknown items after that (404).
 */
export function resolveLines(items: PlaceOrderBody['items'], variants: OrderableVariant[]): ResolvedLine[] {
  const bySku = new Map(variants.map((v) => [v.sku, v]));
  const byId = new Map(variants.map((v) => [v.id, v]));
  const byBarcode = new Map(variants.filter((v) => v.barcode).map((v) => [v.barcode!, v]));
  const missing: string[] = [];
  const lines = new Map<string, ResolvedLine>();
  /** the first item of each line, where a problem with the line is reported */
  const firstItem = new Map<string, number>();
  const refused: FieldIssue[] = [];
  for (const [index, item] of items.entries()) {
    const v = bySku.get(item.product_id) ?? byId.get(item.product_id) ?? byBarcode.get(item.product_id);
    if (!v || !v.for_sale) {
      if (!missing.includes(item.product_id)) missing.push(item.product_id);
      continue;
    }
    const quantity = parseQuantity(item.quantity);
    if (quantity === null) throw validationError([{ path: 'items', message: 'quantity must be greater than 0 with at most 3 decimals' }]);
    if (isWholeUnit(v.unit) && !quantity.isInteger()) refused.push({ path: `items[${index}].quantity`, message: wholeNumberMessage(v.unit, v.sku) });
    const line = lines.get(v.id);
    if (line) {
      // A merged line is one line: it has the same bound as a single one (reported once, at the line that crossed it).
      const within = line.quantityDec.lte(MAX_QUANTITY);
      line.quantityDec = line.quantityDec.plus(quantity);
      if (within && line.quantityDec.gt(MAX_QUANTITY)) {
        refused.push({
          path: `items[${index}].quantity`,
          message: `lines naming ${v.sku} are merged into one line of ${qty(line.quantityDec)}; a line may be at most ${MAX_QUANTITY}`,
        });
      }
    } else {
      firstItem.set(v.id, index);
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
  }
  if (refused.length > 0) throw validationError(refused);
  if (missing.length > 0) {
    throw notFound(
      `${missing.length === 1 ? 'item' : 'items'} not found or not for sale: ${missing.join(', ')}; send a variant's sku (or variant_id or barcode) from GET /catalog/products`,
      missing,
    );
  }
  let amount = new Decimal(0);
  for (const line of lines.values()) {
    const total = new Decimal(line.unitPrice).times(line.quantityDec).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    amount = amount.plus(total);
    if (amount.gt(MAX_AMOUNT)) {
      const message = `at ${line.unitPrice} a unit, ${qty(line.quantityDec)} of ${line.sku} brings the order to ${money(amount)}; an order may total at most ${money(MAX_AMOUNT)}`;
      throw validationError([{ path: `items[${firstItem.get(line.variantId)}].quantity`, message }]);
    }
    line.quantity = qty(line.quantityDec);
    line.lineTotal = money(total);
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
