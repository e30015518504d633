import type { CourierAdapter } from './types.js';

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
