import { z } from 'zod';
import { orderLookupParams, orderLookupQuery } from './orders.js';

/** How long a payment link stays payable unless the request says otherwise (docs/decisions.md). */
export const PAYMENT_LINK_DEFAULT_MINUTES = 24 * 60;
/** Razorpay refuses an expiry under 15 minutes ahead; a week is our own ceiling for a COD order waiting to ship. */
export const PAYMENT_LINK_MIN_MINUTES = 15;
export const PAYMENT_LINK_MAX_MINUTES = 7 * 24 * 60;

export const paymentLinkParams = orderLookupParams;

export const paymentLinkBody = z.object({
  phone: orderLookupQuery.shape.phone,
  expire_in_minutes: z
    .number({ error: 'must be a whole number of minutes' })
    .int('must be a whole number of minutes')
    .min(PAYMENT_LINK_MIN_MINUTES, `must be at least ${PAYMENT_LINK_MIN_MINUTES}`)
    .max(PAYMENT_LINK_MAX_MINUTES, `must be at most ${PAYMENT_LINK_MAX_MINUTES}`)
    .optional()
    .describe(
      `Optional: how long the link stays payable, ${PAYMENT_LINK_MIN_MINUTES}-${PAYMENT_LINK_MAX_MINUTES} minutes; default ${PAYMENT_LINK_DEFAULT_MINUTES} (24 hours). ` +
        'Ignored when the order already has a live link for the amount due (that link is answered).',
    ),
});
export type PaymentLinkBody = z.infer<typeof paymentLinkBody>;

export const paymentLinkSchema = z.object({
  link_id: z.string().describe("The provider's id of the link (Razorpay plink_…)."),
  order_id: z.string(),
  order_number: z.string(),
  short_url: z.string().describe('The link to send the buyer as it is; the service does not send it.'),
  amount: z.string().describe('What the link asks, INR with GST: the amount due on the order.'),
  currency: z.literal('INR'),
  status: z.enum(['created', 'paid', 'expired', 'cancelled']).describe('`created` while it can be paid.'),
  expires_at: z.string().nullable(),
  created_at: z.string(),
});
export type PaymentLinkOut = z.infer<typeof paymentLinkSchema>;

/** 201 for a new link; 200 with `existing: true` for the live link the order already had. */
export const paymentLinkResponse = z.object({ data: paymentLinkSchema, existing: z.literal(true).optional() });
