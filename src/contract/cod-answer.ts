import { z } from 'zod';
import { orderLookupParams, PHONE_FORMAT, requiredAs } from './orders.js';

/** The buyer's answer to "confirm your cash-on-delivery order?". */
export const COD_ANSWERS = ['confirm', 'decline'] as const;
export type CodAnswer = (typeof COD_ANSWERS)[number];

/** POST /orders/{reference}/cod-confirmation; with the reference, the `confirm_cod_order` tool's arguments. */
export const codConfirmationBody = z.object(
  {
    answer: z
      .enum(COD_ANSWERS, { error: requiredAs('"confirm" or "decline"') })
      .describe(
        '"confirm": the buyer will pay cash on delivery (a courier is booked when the company books automatically); "decline": the buyer does not want it (the order is cancelled and its stock released). The same answer again changes nothing.',
      ),
    phone: z
      .string({ error: 'must be a string' })
      .optional()
      .describe(`Optional: the buyer's mobile number; pass it whenever answering for a buyer, and the order is answered only if it is theirs. ${PHONE_FORMAT}`),
  },
  { error: 'must be a JSON object { answer }' },
);
export type CodConfirmationBody = z.output<typeof codConfirmationBody>;

/** The `confirm_cod_order` tool's arguments: the order's reference with the body. */
export const codConfirmationArgs = orderLookupParams.extend(codConfirmationBody.shape);
