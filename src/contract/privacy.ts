import { z } from 'zod';
import { nullsAsAbsent } from './validation.js';
import { deliveryAddressInput, deliveryAddressSchema, emailInput, phoneInput, PHONE_FORMAT, requiredText } from './orders.js';

/**
 * A customer's data rights under the DPDP Act (access, correction, erasure): the doors' inputs and outputs, shared by
 * REST (`/privacy/...`, the key permission `privacy`), the MCP tools and the CLI.
 */

const customerRef = {
  phone: phoneInput.optional().describe(`The customer's mobile number. ${PHONE_FORMAT} Give it or customer_id, not both.`),
  customer_id: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(64, 'must be at most 64 characters')
    .optional()
    .describe('The customer id (cus_…), as GET /customers answers it. Give it or phone, not both.'),
};

/** Exactly one of phone and customer_id. */
function oneCustomer(v: { phone?: string; customer_id?: string }, ctx: z.RefinementCtx) {
  if (v.phone === undefined && v.customer_id === undefined) ctx.addIssue({ code: 'custom', path: ['phone'], message: 'required; send phone or customer_id' });
  else if (v.phone !== undefined && v.customer_id !== undefined)
    ctx.addIssue({ code: 'custom', path: ['customer_id'], message: 'send phone or customer_id, not both' });
}

/** The tools' arguments are the plain objects (`define` adds null-as-absent); the refined schemas check the combinations for every door. */
export const customerDataArgs = z.object(customerRef);
export const customerDataQuery = customerDataArgs.superRefine(oneCustomer);
export type CustomerRef = z.output<typeof customerDataQuery>;

export const correctionArgs = nullsAsAbsent(
  z.object({
    ...customerRef,
    name: requiredText(120).optional().describe("The customer's name as it should read (1-120 characters)."),
    email: emailInput.describe('The e-mail address as it should read; an empty string removes it.'),
    address: deliveryAddressInput
      .optional()
      .describe(
        'The address as it should read: line1 (1-200 characters), city (1-80) and pincode (six digits) required; line2, state, name and phone optional. ' +
          "It replaces the address on file and the delivery address of the customer's orders not yet shipped.",
      ),
  }),
);
export const correctionBody = correctionArgs.superRefine((v, ctx) => {
  oneCustomer(v, ctx);
  if (v.name === undefined && v.email === undefined && v.address === undefined)
    ctx.addIssue({ code: 'custom', path: ['name'], message: 'required; send at least one of name, email, address' });
});
export type CorrectionInput = z.output<typeof correctionBody>;

export const erasureArgs = nullsAsAbsent(
  z.object({
    ...customerRef,
    cancel_open_orders: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        'Without it, a customer with an order not yet delivered (draft, confirmed, packed, shipped) is refused (409 conflict, details list them). ' +
          'true: drafts, confirmed and packed orders are cancelled (stock released) and shipped ones are left to the courier, then the customer is erased.',
      ),
  }),
);
export const erasureBody = erasureArgs.superRefine(oneCustomer);
export type ErasureInput = z.output<typeof erasureBody>;

const when = z.string().describe('ISO 8601 time');

export const customerDataSchema = z.object({
  generated_at: when,
  customer: z.object({
    customer_id: z.string(),
    name: z.string(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    address: deliveryAddressSchema.nullable(),
    messaging_opted_out: z.boolean(),
    created_at: when,
    updated_at: when,
    erased_at: when.nullable(),
  }),
  consents: z.array(z.object({ purpose: z.string(), channel: z.string(), state: z.string(), source: z.string(), recorded_at: when })),
  orders: z.array(
    z.object({
      order_id: z.string(),
      order_number: z.string(),
      external_reference: z.string().nullable(),
      status: z.string(),
      payment: z.string(),
      payment_reference: z.string().nullable(),
      notes: z.string().nullable(),
      amount: z.string(),
      discount_amount: z.string(),
      shipping_amount: z.string(),
      currency: z.string(),
      delivery_address: deliveryAddressSchema.nullable(),
      cod_confirmation: z.object({ status: z.string(), settled_by: z.string().nullable() }).nullable(),
      created_at: when,
      lines: z.array(z.object({ sku: z.string(), name: z.string(), quantity: z.string(), unit_price: z.string(), line_total: z.string() })),
      shipment: z
        .object({
          courier: z.string().nullable(),
          awb: z.string().nullable(),
          status: z.string(),
          tracking_url: z.string().nullable(),
          delivered_at: when.nullable(),
          events: z.array(z.object({ status: z.string(), source: z.string(), note: z.string().nullable(), at: when })),
        })
        .nullable(),
      invoice: z
        .object({
          invoice_number: z.string(),
          total: z.string(),
          amount_paid: z.string(),
          issued_at: when,
          credit_note: z.object({ credit_note_number: z.string(), reason: z.string(), total: z.string(), issued_at: when }).nullable(),
          payments: z.array(z.object({ amount: z.string(), method: z.string(), reference: z.string().nullable(), recorded_at: when })),
        })
        .nullable(),
      payment_links: z.array(
        z.object({ short_url: z.string(), amount: z.string(), status: z.string(), expires_at: when.nullable(), paid_at: when.nullable(), created_at: when }),
      ),
    }),
  ),
  checkout_sessions: z.array(
    z.object({
      checkout_id: z.string(),
      status: z.string(),
      order_id: z.string().nullable(),
      // as the checkout keeps them (UCP's shapes); null once retention or erasure removed them
      buyer: z.record(z.string(), z.unknown()).nullable(),
      fulfillment: z.record(z.string(), z.unknown()).nullable(),
      created_at: when,
      updated_at: when,
    }),
  ),
  events: z.array(z.object({ event_id: z.string(), type: z.string(), subject_id: z.string(), created_at: when, data: z.record(z.string(), z.unknown()) })),
});
export type CustomerData = z.infer<typeof customerDataSchema>;

export const correctionSchema = z.object({
  customer_id: z.string(),
  corrected: z.array(z.enum(['name', 'email', 'address'])).describe('The fields changed on the customer record.'),
  orders_updated: z.array(z.string()).describe('Order numbers whose delivery address was corrected (those not yet shipped: draft, confirmed, packed).'),
  orders_not_updated: z.array(z.string()).describe('Order numbers already shipped or finished: their address stays as the courier and the invoice have it.'),
});
export type CorrectionResult = z.infer<typeof correctionSchema>;

export const erasureSchema = z.object({
  customer_id: z.string(),
  erased_at: when,
  already_erased: z.boolean().describe('true: the customer was erased before; nothing changed now.'),
  cancelled_orders: z.array(z.string()).describe('Order numbers cancelled by this erasure (cancel_open_orders).'),
  erased: z.record(z.string(), z.number().int()).describe('Rows rewritten or deleted, per table.'),
  retained: z.array(z.object({ what: z.string(), why: z.string() })).describe('What is kept, and the law that requires it.'),
});
export type ErasureReport = z.infer<typeof erasureSchema>;
