import type { OrderStatus, ShipmentStatus } from './statuses.js';
import { money, qty } from '../lib/money.js';
import { iso, isoOrNull } from '../lib/time.js';
import type { DeliveryAddress, Order, OrderLine, OrderSummary } from './orders.js';
import { orderStatusLabel, shipmentStatusLabel } from './status-labels.js';
import { codConfirmationOut, type CodConfirmationFields } from './cod-confirmation.js';

/** The order columns the mappers read, as the queries return them. */
export interface OrderSummaryFields extends CodConfirmationFields {
  id: string;
  order_number: string;
  status: OrderStatus;
  amount: string;
  currency: string;
  created_at: Date;
  external_reference: string | null;
}

export interface OrderFields extends OrderSummaryFields {
  payment: 'cod' | 'prepaid';
  delivery_address: DeliveryAddress | null;
}

export interface LineFields {
  sku: string;
  name: string;
  quantity: string;
  unit_price: string;
  line_total: string;
}

/** An order in a customer's `recent_orders` (and the head of an order lookup). */
export function toOrderSummary(o: OrderSummaryFields): OrderSummary {
  return {
    order_id: o.id,
    order_number: o.order_number,
    order_status: o.status,
    status_label: orderStatusLabel(o.status),
    amount: money(o.amount),
    currency: o.currency,
    order_date: iso(o.created_at),
    external_reference: o.external_reference,
    cod_confirmation: codConfirmationOut(o),
  };
}

export const lineOut = (l: LineFields): OrderLine => ({
  sku: l.sku,
  name: l.name,
  quantity: qty(l.quantity),
  unit_price: money(l.unit_price),
  line_total: money(l.line_total),
});

/** The POST /orders `data`. */
export function orderOut(o: OrderFields, lines: LineFields[]): Order {
  return {
    order_id: o.id,
    order_number: o.order_number,
    order_status: o.status,
    amount: money(o.amount),
    currency: o.currency,
    created_at: iso(o.created_at),
    external_reference: o.external_reference ?? '',
    items: lines.map(lineOut),
    payment: o.payment,
    delivery_address: o.delivery_address,
    cod_confirmation: codConfirmationOut(o),
  };
}

/** The lookup's `shipment` object (spec shape). */
export function shipmentOut(s: { awb: string | null; courier: string | null; status: ShipmentStatus; tracking_url: string | null; delivered_at: Date | null }) {
  return {
    awb: s.awb,
    courier: s.courier,
    status: s.status,
    status_label: shipmentStatusLabel(s.status),
    tracking_url: s.tracking_url,
    delivered_at: isoOrNull(s.delivered_at),
  };
}
