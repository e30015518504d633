import type { z } from 'zod';
import { SHIPMENT_STATUSES, type ShipmentStatus } from '../contract/statuses.js';

// The status set is part of the wire contract; couriers' code keeps importing it from here.
export { SHIPMENT_STATUSES, type ShipmentStatus };

/**
 * The one definition of how a shipment's current status may move. Couriers' updates arrive late, repeated and
 * out of order; an update naming a status not listed here for the current one is history, never the current
 * status. Forward only along pending → booked → picked_up → in_transit → out_for_delivery → delivered, with
 * side exits: failed (an attempt failed, lost, damaged) may be retried (out_for_delivery) or delivered or
 * returned; rto (return to origin) may start any time after booking until delivery; delivered, rto and
 * cancelled are final. A parcel already with the courier is not cancelled by a courier's word.
 */
export const SHIPMENT_MOVES: Record<ShipmentStatus, readonly ShipmentStatus[]> = {
  pending: ['booked', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered', 'rto', 'cancelled', 'failed'],
  booked: ['picked_up', 'in_transit', 'out_for_delivery', 'delivered', 'rto', 'cancelled', 'failed'],
  picked_up: ['in_transit', 'out_for_delivery', 'delivered', 'rto', 'failed'],
  in_transit: ['out_for_delivery', 'delivered', 'rto', 'failed'],
  out_for_delivery: ['delivered', 'rto', 'failed'],
  failed: ['out_for_delivery', 'delivered', 'rto'],
  delivered: [],
  rto: [],
  cancelled: [],
};

/** `same`: a repeat (changes nothing); `move`: becomes the current status; `stale`: history only. */
export function shipmentMove(from: ShipmentStatus, to: ShipmentStatus): 'same' | 'move' | 'stale' {
  if (from === to) return 'same';
  return SHIPMENT_MOVES[from].includes(to) ? 'move' : 'stale';
}

/**
 * A company's courier settings as stored (credentials included: never log this object). The columns are
 * generic: `apiPassword` holds the courier's secret (Shiprocket's password, Delhivery's API token); what a
 * courier needs of them is its registry entry's `configSchema` (registry.ts).
 */
export interface CourierConfigOf<N extends string = string> {
  adapter: N;
  baseUrl: string | null;
  apiEmail: string | null;
  apiPassword: string | null;
  pickupLocation: string | null;
}

/** The settings as `courier configure` names them and a courier's `configSchema` reads them (absent: undefined). */
export interface CourierSettingsInput {
  baseUrl?: string;
  email?: string;
  password?: string;
  token?: string;
  pickupLocation?: string;
}

export interface BookingRequest {
  orderNumber: string;
  orderDate: Date;
  payment: 'cod' | 'prepaid';
  amount: string;
  customerName: string;
  customerPhone: string | null;
  address: { name: string | null; line1: string; line2: string | null; city: string; state: string; pincode: string; phone: string | null };
  items: { sku: string; name: string; quantity: string; unitPrice: string }[];
}

export interface Booking {
  awb: string;
  courier: string;
  courierOrderId: string;
  courierShipmentId: string;
}

/**
 * A courier's failure. `retryable`: timeouts, network errors, 429 and 5xx (try again later); anything
 * else (bad credentials, refused address) needs a person, so the job is marked failed at once.
 */
export class CourierError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'CourierError';
  }
}

export interface CourierAdapter {
  /** the registry's name of its courier (registry.ts) */
  readonly name: string;
  /** Books a parcel and returns its AWB; null when the adapter cannot book by itself (manual: staff do). */
  book(req: BookingRequest, signal: AbortSignal): Promise<Booking | null>;
  /** The courier's latest state for an AWB, mapped to the spec's set; null when the courier cannot say. */
  track(awb: string, signal: AbortSignal): Promise<ShipmentStatus | null>;
  /** The customer-facing tracking page for an AWB, or null when the courier has none we know. */
  trackingUrl(awb: string): string | null;
}

/**
 * One courier, as the registry (registry.ts) lists it: its name (stored in courier_configs.adapter and
 * shipments.adapter), the settings it needs (`configSchema`, checked when they are set and when they are read
 * to book), the adapter made from them, how its own status words map to the spec's set (callbacks and
 * tracking) and its customer-facing tracking page.
 */
export interface CourierEntry<N extends string = string, S = unknown> {
  readonly name: N;
  readonly configSchema: z.ZodType<S>;
  // methods, not properties: an entry with its own settings type still fits CourierEntry<string, unknown>
  create(settings: S): CourierAdapter;
  mapStatus(text: string): ShipmentStatus | null;
  trackingUrl(awb: string): string | null;
}

/** An entry with its name kept as a literal type (the registry derives AdapterName from them). */
export const defineCourier = <const N extends string, S>(entry: CourierEntry<N, S>): CourierEntry<N, S> => entry;
