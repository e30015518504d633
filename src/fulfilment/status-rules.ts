import type { OrderStatus, ShipmentStatus } from '../contract/statuses.js';

/**
 * Fulfilment's rules that depend on a status, each a decision for every status (`Record<…, boolean>`): a new
 * order or shipment status does not compile until each rule here says what it means for it.
 */

/** An order whose delivery address may still change (nothing handed to a courier yet). */
export const ADDRESS_CAN_CHANGE: Readonly<Record<OrderStatus, boolean>> = {
  draft: true,
  confirmed: true,
  packed: true,
  shipped: false,
  delivered: false,
  cancelled: false,
  returned: false,
};

/** An order a courier may be booked for and that ships when its parcel leaves us. */
export const READY_TO_SHIP: Readonly<Record<OrderStatus, boolean>> = {
  draft: false,
  confirmed: true,
  packed: true,
  shipped: false,
  delivered: false,
  cancelled: false,
  returned: false,
};

/** Orders a courier's delivery cannot complete: the update is held for staff instead. */
export const DELIVERY_HELD_FOR_STAFF: Readonly<Record<OrderStatus, boolean>> = {
  draft: true,
  confirmed: false,
  packed: false,
  shipped: false,
  delivered: false,
  cancelled: true,
  returned: false,
};

/** Courier states meaning the parcel has left us: the order counts as shipped. */
export const LEFT_US: Readonly<Record<ShipmentStatus, boolean>> = {
  pending: false,
  booked: false,
  picked_up: true,
  in_transit: true,
  out_for_delivery: true,
  delivered: true,
  rto: false,
  cancelled: false,
  failed: false,
};
