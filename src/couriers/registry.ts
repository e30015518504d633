import { delhiveryCourier } from './delhivery.js';
import { manualCourier } from './manual.js';
import { shiprocketCourier } from './shiprocket.js';
import type { CourierConfigOf, CourierEntry } from './types.js';

/**
 * Every courier the service can use, one line each. A new courier is its file (an entry made with
 * `defineCourier`: name, configSchema, create, mapStatus, trackingUrl) and its line here; the names stored in
 * courier_configs.adapter and shipments.adapter are these (a migration widens their CHECK constraints, and
 * test/couriers/registry.test.ts fails until it does).
 */
export const COURIER_REGISTRY = [manualCourier, shiprocketCourier, delhiveryCourier] as const;

export type AdapterName = (typeof COURIER_REGISTRY)[number]['name'];
/** A company's courier settings as stored, named by a courier of the registry (never log this object: credentials). */
export type CourierConfig = CourierConfigOf<AdapterName>;
export const COURIER_ADAPTERS: readonly AdapterName[] = COURIER_REGISTRY.map((c) => c.name);

const BY_NAME = new Map<string, CourierEntry>(COURIER_REGISTRY.map((c) => [c.name, c]));

export const isAdapterName = (name: string): name is AdapterName => BY_NAME.has(name);

/** A stored courier name as the registry's (one it does not know is a fault: the CHECK constraints allow none). */
export function adapterName(name: string): AdapterName {
  if (!isAdapterName(name)) throw new Error(`unknown courier adapter "${name}"`);
  return name;
}

/** The registry entry of a courier name. */
export const courierEntry = (name: string): CourierEntry => BY_NAME.get(adapterName(name))!;
