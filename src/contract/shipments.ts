import type { ShipmentStatus } from '../couriers/types.js';
import { shipmentStatusLabel } from './status-labels.js';
import { isoOrNull } from '../lib/time.js';

/** The lookup's `shipment` object (spec shape). */
export function shipmentOut(s: { awb: string | null; courier: string | null; status: ShipmentStatus; tracking_url: string | null; delivered_at: Date | null }) {
  return { awb: s.awb, courier: s.courier, status: s.status, status_label: shipmentStatusLabel(s.status), tracking_url: s.tracking_url, delivered_at: isoOrNull(s.delivered_at) };
}
