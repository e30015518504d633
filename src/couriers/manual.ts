import { z } from 'zod';
import { mapShiprocketStatus } from './shiprocket.js';
import { defineCourier, type CourierAdapter } from './types.js';

/** Staff book the parcel themselves and enter AWB and courier by CLI; this adapter never pretends to book. */
export function createManualAdapter(): CourierAdapter {
  return {
    name: 'manual',
    async book() {
      return null;
    },
    async track() {
      return null;
    },
    trackingUrl() {
      return null;
    },
  };
}

/**
 * The manual courier in the registry: no settings. A callback for it carries our status names or a courier's
 * words, read as Shiprocket's (the aggregator whose words staff's couriers most often send).
 */
export const manualCourier = defineCourier({
  name: 'manual',
  configSchema: z.object({}),
  create: createManualAdapter,
  mapStatus: mapShiprocketStatus,
  trackingUrl: () => null,
});
