import { z } from 'zod';
import { queryInt } from './validation.js';
import { orderSummarySchema, phoneInput, PHONE_FORMAT, requiredAs } from './orders.js';
import { CONSENT_CHANNELS, CONSENT_PURPOSES, CONSENT_STATES, consentStatesSchema, maySendSchema } from './consents.js';

export const customerLookupQuery = z.object({
  phone: phoneInput.describe(`The customer's mobile number. ${PHONE_FORMAT}`),
  recent_orders: queryInt(1, 20, 5).describe('How many latest orders to include, 1-20 (default 5).'),
});

export type CustomerLookupQuery = z.output<typeof customerLookupQuery>;

/** How the customer's orders ended (docs/decisions.md "A customer's delivery record"); each order counts once. */
export const deliveryRecordSchema = z
  .object({
    delivered: z.number().int().describe('Orders delivered to the customer (a return after delivery still counts here).'),
    returned_to_origin: z
      .number()
      .int()
      .describe(
        'Orders whose parcel came back undelivered: the courier reported it returning to origin, or staff recorded the order returned without a delivery.',
      ),
    cancelled: z.number().int().describe('Orders cancelled before they shipped.'),
  })
  .describe("The customer's delivery record, for deciding whether to offer cash on delivery.");

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
  delivery_record: deliveryRecordSchema,
  consents: consentStatesSchema,
  may_send: maySendSchema,
  privacy_notice_url: z
    .string()
    .nullable()
    .describe(
      "The company's privacy notice: link the customer to it when asking for consent or when they ask how their data is used; null when the company has set none.",
    ),
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

/** POST /customers/consents; also the `set_customer_consent` tool's arguments. */
export const setConsentBody = z.object(
  {
    phone: phoneInput.describe(`The customer's mobile number. ${PHONE_FORMAT}`),
    purpose: z
      .enum(CONSENT_PURPOSES, { error: requiredAs('"order_updates" or "marketing"') })
      .describe('"order_updates": messages about their orders; "marketing": offers and news.'),
    channel: z.enum(CONSENT_CHANNELS, { error: requiredAs('"messaging" or "email"') }).describe('"messaging" (the messaging channel) or "email".'),
    state: z
      .enum(CONSENT_STATES, { error: requiredAs('"given" or "withdrawn"') })
      .describe('"given": the customer agreed; "withdrawn": the customer asked to stop. Sending the current state changes nothing.'),
  },
  { error: 'must be a JSON object { phone, purpose, channel, state }' },
);
export type SetConsentBody = z.output<typeof setConsentBody>;
