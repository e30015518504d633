import type { OrderStatus, ShipmentStatus } from './statuses.js';

/** Statuses in words a customer understands; the one place REST, MCP and messages take them from. */
export const ORDER_STATUS_LABELS: Readonly<Record<OrderStatus, string>> = {
  draft: 'Order being prepared',
  confirmed: 'Order confirmed',
  packed: 'Packed and ready to ship',
  shipped: 'Shipped',
  delivered: 'Delivered',
  cancelled: 'Cancelled',
  returned: 'Returned to us',
};

export const SHIPMENT_STATUS_LABELS: Readonly<Record<ShipmentStatus, string>> = {
  pending: 'Waiting for courier booking',
  booked: 'Courier booked',
  picked_up: 'Picked up by the courier',
  in_transit: 'On the way',
  out_for_delivery: 'Out for delivery',
  delivered: 'Delivered',
  rto: 'Returning to the seller',
  cancelled: 'Shipment cancelled',
  failed: 'Delivery attempt failed',
};

export const orderStatusLabel = (status: OrderStatus): string => ORDER_STATUS_LABELS[status];
export const shipmentStatusLabel = (status: ShipmentStatus): string => SHIPMENT_STATUS_LABELS[status];
