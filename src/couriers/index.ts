import { createManualAdapter } from './manual.js';
import { createShiprocketAdapter, shiprocketTrackingUrl } from './shiprocket.js';
import type { AdapterName, CourierAdapter, CourierConfig } from './types.js';
import { CourierError } from './types.js';

export * from './types.js';
export { mapShiprocketStatus } from './shiprocket.js';

/** The adapter a company's configuration names; a half-configured Shiprocket account is a permanent error. */
export function courierAdapter(config: CourierConfig | null): CourierAdapter {
  if (!config || config.adapter === 'manual') return createManualAdapter();
  if (!config.baseUrl || !config.apiEmail || !config.apiPassword) {
    throw new CourierError('courier "shiprocket" is not fully configured (base URL, email and password)', false);
  }
  return createShiprocketAdapter({
    baseUrl: config.baseUrl,
    email: config.apiEmail,
    password: config.apiPassword,
    pickupLocation: config.pickupLocation ?? 'Primary',
  });
}

export function trackingUrlFor(adapter: AdapterName, awb: string | null): string | null {
  if (!awb) return null;
  return adapter === 'shiprocket' ? shiprocketTrackingUrl(awb) : null;
}
