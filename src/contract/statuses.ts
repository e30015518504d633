import { ORDER_STATUSES } from '../db/schema/orders.js';
import { SHIPMENT_STATUSES } from '../db/schema/fulfilment.js';

/**
 * The spec's order.status and shipment.status sets (the latter: the courier's latest state), the ones the
 * database's CHECK constraints hold. Everything keyed by a status is a `Record<OrderStatus | ShipmentStatus, …>`,
 * so a new status is a compile error wherever it needs a decision (labels, moves, the rules in fulfilment).
 */
export { ORDER_STATUSES, SHIPMENT_STATUSES };
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];
