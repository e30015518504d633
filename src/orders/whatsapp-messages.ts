import { metaRetailerId } from '../catalogue/feed.service.js';
import { AppError } from '../contract/errors.js';
import type { OrderLookup } from '../contract/orders.js';
import type { OrderStatus } from '../contract/statuses.js';
import {
  META_LIMITS,
  textLength,
  type MetaOrderStatus,
  type OrderDetailsMessage,
  type OrderDetailsTemplateMessage,
  type OrderStatusMessage,
  type OrderStatusTemplateMessage,
} from '../contract/whatsapp.js';
import { includedGst } from '../lib/gst-tax.js';
import { Decimal, money, paise } from '../lib/money.js';
import type { MessageFacts } from './whatsapp.queries.js';

/**
 * WhatsApp Cloud API order messages built from an order as its lookup shows it and the facts the lookup leaves out
 * (whatsapp.queries.ts): pure functions, the one place our decimal amounts become Meta's {value, offset: 100}. The
 * shapes and limits are in contract/whatsapp.ts; docs/decisions.md says why each choice.
 */

/** The lookup fields a message reads (an order event's data has them all too). */
export type MessageOrder = Pick<OrderLookup, 'order_number' | 'order_status' | 'amount' | 'customer' | 'items' | 'shipment' | 'invoice'>;

const unprocessable = (message: string, details?: unknown) => new AppError('unprocessable', message, details);

/** Text cut to `max` (Meta's count) on a grapheme boundary, so a Devanagari vowel sign never loses its letter. */
export function fitText(text: string, max: number): string {
  if (textLength(text) <= max) return text;
  let out = '';
  for (const { segment } of new Intl.Segmenter('hi', { granularity: 'grapheme' }).segment(text)) {
    if (textLength(out) + textLength(segment) + 1 > max) break;
    out += segment;
  }
  return `${out.trimEnd()}…`;
}

/** Rupees as Meta's amount: paise over offset 100, exact (our amounts have at most two decimals). */
function amount(rupees: Decimal | string | number): { value: number; offset: 100 } {
  return { value: paise(rupees), offset: META_LIMITS.offset };
}

function recipient(order: MessageOrder): string {
  const phone = order.customer.phone;
  if (!phone) throw unprocessable('the customer has no phone number to message', [{ path: 'customer.phone', message: 'missing' }]);
  return phone.replace(/^\+/, '');
}

function referenceId(order: MessageOrder): string {
  if (!META_LIMITS.referenceId.test(order.order_number))
    throw unprocessable("the order number cannot be WhatsApp's reference_id (English letters, digits, _ - . only; at most 35 characters)", [
      { path: 'order_number', message: 'not a valid reference_id' },
    ]);
  return order.order_number;
}

const ENVELOPE = { messaging_product: 'whatsapp', recipient_type: 'individual' } as const;

/** What review_and_pay carries: items, amounts adding up by Meta's rule, and one way to pay. */
function orderDetailsParameters(order: MessageOrder, facts: MessageFacts): OrderDetailsMessage['interactive']['action']['parameters'] {
  const owed = order.invoice ? new Decimal(order.invoice.amount_due) : new Decimal(order.amount);
  if (facts.payment === 'prepaid' || ['cancelled', 'returned', 'delivered'].includes(order.order_status) || owed.isZero())
    throw unprocessable('nothing is owed on this order: an order_details message asks the buyer to pay', [
      { path: 'type', message: `the order is ${facts.payment === 'prepaid' ? 'prepaid' : order.order_status}` },
    ]);
  const catalogId = facts.settings.catalog_id;
  if (!catalogId)
    throw unprocessable("the company's Meta catalogue id is not set: the items are named by their catalogue retailer_id (admin: whatsapp set --catalog-id)", [
      { path: 'catalog_id', message: 'not set' },
    ]);
  const reference = referenceId(order);

  // Meta's quantity is a whole number: a line of 1.5 KG is one item at the line's total, its quantity in the name.
  const items = order.items.map((l) => {
    const q = new Decimal(l.quantity);
    const whole = q.isInteger() && q.gt(0) && new Decimal(l.unit_price).times(q).eq(l.line_total);
    return {
      retailer_id: metaRetailerId(l.sku),
      name: fitText(whole ? l.name : `${l.name} × ${q.toString()}`, META_LIMITS.itemName),
      amount: amount(whole ? l.unit_price : l.line_total),
      quantity: whole ? q.toNumber() : 1,
    };
  });
  const subtotal = order.items.reduce((sum, l) => sum.plus(l.line_total), new Decimal(0));
  const shipping = new Decimal(facts.shipping_amount);
  const discount = new Decimal(facts.discount_amount);
  if (!subtotal.plus(shipping).minus(discount).eq(order.amount))
    throw new Error(`order ${order.order_number}: lines, shipping and discount do not add up to its amount`);

  // Our prices include GST, so Meta's tax (added on top) is 0 and its description names the GST included, computed
  // per line as the invoice does (each line's amount after its discount and shipping shares, at its rate).
  const gst = facts.gst_registered
    ? order.items.reduce((sum, l, i) => {
        const f = facts.lines[i];
        return sum.plus(includedGst(new Decimal(l.line_total).minus(f.discount).plus(f.shipping), f.tax_rate));
      }, new Decimal(0))
    : null;

  return {
    reference_id: reference,
    type: 'physical-goods',
    payment_settings: [paymentSetting(order, facts, reference)],
    currency: 'INR',
    total_amount: amount(order.amount),
    order: {
      status: 'pending',
      catalog_id: catalogId,
      items,
      subtotal: amount(subtotal),
      tax: { ...amount(0), ...(gst ? { description: `Includes GST ₹${money(gst)}` } : {}) },
      ...(shipping.gt(0) ? { shipping: { ...amount(shipping), description: 'Shipping' } } : {}),
      ...(discount.gt(0) ? { discount: { ...amount(discount), description: 'Discount' } } : {}),
    },
  };
}

/** The order's own live payment link first; else the payment gateway configuration; else UPI intent. */
function paymentSetting(order: MessageOrder, facts: MessageFacts, reference: string) {
  const s = facts.settings;
  if (facts.payment_link) return { type: 'payment_link' as const, payment_link: { uri: facts.payment_link.short_url } };
  if (s.payment_configuration)
    return {
      type: 'payment_gateway' as const,
      payment_gateway: { type: 'razorpay' as const, configuration_name: s.payment_configuration, razorpay: { receipt: reference } },
    };
  if (s.upi_vpa) {
    const q = new URLSearchParams({ pa: s.upi_vpa, pn: s.upi_payee_name ?? s.upi_vpa, tr: reference, am: money(order.amount), cu: 'INR' });
    return { type: 'upi_intent_link' as const, upi_intent_link: { link: `upi://pay?${q.toString().replaceAll('+', '%20')}` } };
  }
  throw unprocessable('no way to pay: create a payment link for the order, or set the payment configuration or UPI id (admin: whatsapp set)', [
    { path: 'payment_settings', message: 'none available' },
  ]);
}

function bodyText(order: MessageOrder): string {
  const n = order.items.length;
  return fitText(`Order ${order.order_number}: ${n} ${n === 1 ? 'item' : 'items'}, ₹${money(order.amount)}. Review and pay below.`, META_LIMITS.bodyText);
}

/** The interactive order_details message (inside the 24-hour customer service window). */
export function buildOrderDetails(order: MessageOrder, facts: MessageFacts): OrderDetailsMessage {
  const parameters = orderDetailsParameters(order, facts);
  return {
    ...ENVELOPE,
    to: recipient(order),
    type: 'interactive',
    interactive: { type: 'order_details', body: { text: bodyText(order) }, action: { name: 'review_and_pay', parameters } },
  };
}

function templateHead(name: string | null, facts: MessageFacts, flag: string) {
  const language = facts.settings.template_language;
  if (!name || !language)
    throw unprocessable(
      `the company's template is not set: outside the 24-hour window WhatsApp takes only an approved template (admin: whatsapp set ${flag} --template-language)`,
      [{ path: 'template', message: 'not set' }],
    );
  return { name, language: { policy: 'deterministic' as const, code: language } };
}

/** The order details template: the same bill on the approved template's "open order details" button. */
export function buildOrderDetailsTemplate(order: MessageOrder, facts: MessageFacts): OrderDetailsTemplateMessage {
  const head = templateHead(facts.settings.template_name, facts, '--template-name');
  const parameters = orderDetailsParameters(order, facts);
  return {
    ...ENVELOPE,
    to: recipient(order),
    type: 'template',
    template: {
      ...head,
      components: [{ type: 'button', sub_type: 'order_details', index: 0, parameters: [{ type: 'action', action: { order_details: parameters } }] }],
    },
  };
}

/** Our order status as Meta's (pending is for a bill not yet paid; our confirmed order is being fulfilled). */
const META_STATUS: Record<Exclude<OrderStatus, 'draft'>, MetaOrderStatus> = {
  confirmed: 'processing',
  packed: 'processing',
  shipped: 'shipped',
  delivered: 'completed',
  cancelled: 'canceled',
  returned: 'canceled',
};

function statusOf(order: MessageOrder): { status: MetaOrderStatus; description: string } {
  const status = META_STATUS[order.order_status as Exclude<OrderStatus, 'draft'>];
  if (!status) throw unprocessable(`an order that is ${order.order_status} has no WhatsApp status`);
  const s = order.shipment;
  const via = s?.courier ? ` with ${s.courier}${s.awb ? `, AWB ${s.awb}` : ''}` : '';
  const description: Record<MetaOrderStatus, string> = {
    pending: 'Awaiting payment',
    processing: order.order_status === 'packed' ? 'Packed, ready to ship' : 'Confirmed, being prepared',
    'partially-shipped': 'Partly shipped',
    shipped: `Shipped${via}`,
    completed: 'Delivered',
    canceled: order.order_status === 'returned' ? 'Returned to the seller' : 'Cancelled',
  };
  return { status, description: fitText(description[status], META_LIMITS.statusDescription) };
}

/** The interactive order_status message for the order's current status. */
export function buildOrderStatus(order: MessageOrder): OrderStatusMessage {
  const current = statusOf(order);
  return {
    ...ENVELOPE,
    to: recipient(order),
    type: 'interactive',
    interactive: {
      type: 'order_status',
      body: { text: fitText(`Order ${order.order_number}: ${current.description}`, META_LIMITS.bodyText) },
      action: { name: 'review_order', parameters: { reference_id: referenceId(order), order: current } },
    },
  };
}

/** The order status template (outside the 24-hour window). */
export function buildOrderStatusTemplate(order: MessageOrder, facts: MessageFacts): OrderStatusTemplateMessage {
  const head = templateHead(facts.settings.status_template_name, facts, '--status-template-name');
  return {
    ...ENVELOPE,
    to: recipient(order),
    type: 'template',
    template: {
      ...head,
      components: [
        { type: 'order_status', parameters: [{ type: 'order_status', order_status: { reference_id: referenceId(order), order: statusOf(order) } }] },
      ],
    },
  };
}

/** An order event's `whatsapp` member: the status message, and on order.created the bill; null where one cannot be built. */
export function eventMessages(
  order: MessageOrder,
  facts: MessageFacts,
  created: boolean,
): { order_status: OrderStatusMessage | null; order_details?: OrderDetailsMessage | null } {
  const orNull = <T>(build: () => T): T | null => {
    try {
      return build();
    } catch (err) {
      if (err instanceof AppError) return null;
      throw err;
    }
  };
  const order_status = orNull(() => buildOrderStatus(order));
  return created ? { order_status, order_details: orNull(() => buildOrderDetails(order, facts)) } : { order_status };
}
