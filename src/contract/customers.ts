import { z } from 'zod';
import { queryInt } from './validation.js';
import { orderSummarySchema, phoneInput, PHONE_FORMAT, requiredAs } from './orders.js';

export const customerLookupQuery = z.object({
  phone: phoneInput.describe(`The customer's mobile number. ${PHONE_FORMAT}`),
  recent_orders: queryInt(1, 20, 5).describe('How many latest orders to include, 1-20 (default 5).'),
});

export type CustomerLookupQuery = z.output<typeof customerLookupQuery>;

export const customerSchema = z.object({
  customer_id: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  pincode: z.string().nullable(),
  shipping_address: z.string().nullable(),
  messaging_opted_out: z.boolean(),
  recent_orders: z.array(orderSummarySchema),
});

export type Customer = z.infer<typeof customerSchema>;

/** PUT /customers/messaging-opt-out. */
export const optOutBody = z.object({
  phone: phoneInput.describe(`The customer's mobile number. ${PHONE_FORMAT}`),
  messaging_opted_out: z
    .boolean({ error: requiredAs('true (the customer asked to stop messages) or false (asked to resume)') })
    .describe('true: the customer asked to stop messages; false: asked to resume. Sending the current value changes nothing.'),
});
export type OptOutBody = z.output<typeof optOutBody>;
