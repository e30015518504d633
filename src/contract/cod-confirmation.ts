import { z } from 'zod';
import { isoOrNull } from '../lib/time.js';

/**
 * An order's COD confirmation on the lookup, in recent orders and in order events (null: none was asked). Imports nothing from orders.ts,
 * which builds on it.
 */
export const codConfirmationSchema = z
  .object({
    status: z
      .enum(['pending', 'confirmed', 'declined'])
      .describe('`pending`: ask the buyer (no courier is booked meanwhile); `confirmed`: it ships; `declined`: the order was cancelled, its stock released'),
    due_at: z.string().nullable().describe('until when a pending confirmation may wait; then the company cancels the order or leaves it to staff'),
    settled_at: z.string().nullable().describe('when it was confirmed or declined; null while pending'),
    settled_by: z
      .enum(['buyer', 'staff', 'timeout', 'payment'])
      .nullable()
      .describe(
        'who settled it: the buyer (through POST /orders/{reference}/cod-confirmation or confirm_cod_order), staff, the time limit (declined), or a payment online (confirmed); null while pending',
      ),
  })
  .nullable()
  .describe('Cash on delivery confirmed before booking (a company setting): null when none was asked (prepaid, or the company does not confirm COD orders).');
export type CodConfirmation = z.infer<typeof codConfirmationSchema>;

/** The order columns the mapper reads (timestamps as Date from a query, as text from place_order()'s JSON). */
export interface CodConfirmationFields {
  cod_confirmation: 'pending' | 'confirmed' | 'declined' | null;
  cod_confirmation_due_at: Date | string | null;
  cod_confirmation_settled_at: Date | string | null;
  cod_confirmation_settled_by: 'buyer' | 'staff' | 'timeout' | 'payment' | null;
}

export function codConfirmationOut(o: CodConfirmationFields): CodConfirmation {
  if (!o.cod_confirmation) return null;
  return {
    status: o.cod_confirmation,
    due_at: isoOrNull(o.cod_confirmation_due_at),
    settled_at: isoOrNull(o.cod_confirmation_settled_at),
    settled_by: o.cod_confirmation_settled_by,
  };
}
