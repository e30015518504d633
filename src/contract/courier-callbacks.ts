import { z } from 'zod';

/** POST /couriers/{company}/callback: a tracking update as a courier sends it (after its signature checks out). */
export const courierCallbackBody = z.object({
  awb: z.string().trim().min(1).max(64).optional(),
  order_reference: z.string().trim().min(1).max(100).optional(),
  // our status names, or the courier's own words ("OUT FOR DELIVERY") under either key
  status: z.string().trim().min(1).max(60).optional(),
  current_status: z.string().trim().min(1).max(60).optional(),
  cod_collected: z.union([z.boolean(), z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be true/false or an amount such as "499.00"')]).optional(),
  note: z.string().max(500).optional(),
});
