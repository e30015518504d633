import { SHIPMENT_STATUSES } from '../db/schema/fulfilment.js';

/** The spec's shipment.status set (courier's latest state): the one the database's CHECK constraint holds. */
export { SHIPMENT_STATUSES };
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];
