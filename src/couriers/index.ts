import { courierEntry } from './registry.js';
import { settingsNamed, storedSettings } from './settings.js';
import type { CourierAdapter, ShipmentStatus } from './types.js';
import type { CourierConfig } from './registry.js';
import { CourierError } from './types.js';

export * from './types.js';
export * from './registry.js';
export { mapShiprocketStatus } from './shiprocket.js';
export { mapDelhiveryStatus } from './delhivery.js';

/** The adapter a company's configuration names, made from its settings; settings its courier cannot use are a permanent error. */
export function courierAdapter(config: CourierConfig | null): CourierAdapter {
  const entry = courierEntry(config?.adapter ?? 'manual');
  const settings = entry.configSchema.safeParse(storedSettings(config));
  if (!settings.success) throw new CourierError(`courier "${entry.name}" is not fully configured (${settingsNamed(settings.error.issues)})`, false);
  return entry.create(settings.data);
}

export function trackingUrlFor(adapter: string, awb: string | null): string | null {
  if (!awb) return null;
  return courierEntry(adapter).trackingUrl(awb);
}

/** A courier's status words (a callback's `status`) in the spec's set, by the courier's own mapping; null when unknown. */
export const courierStatus = (adapter: string, text: string): ShipmentStatus | null => courierEntry(adapter).mapStatus(text);
