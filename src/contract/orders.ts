import { z } from 'zod';
import { Decimal } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { resolveDeliveryState } from '../lib/pincode.js';
import { nullsAsAbsent } from './validation.js';
import { marketingConsentInput, maySendSchema } from './consents.js';
import { codConfirmationSchema } from './cod-confirmation.js';

/** Largest quantity one line may ask for; a line's total against its price is checked when the order is priced (order-input.ts). */
export const MAX_QUANTITY = 1_000_000;
export const MAX_ITEMS = 50;

/** "required; send X" when the field is absent, "must be X" when it has the wrong type. */
export const requiredAs = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `required; send ${what}` : `must be ${what}`);

/** Required text: trimmed, then 1..max characters (all-whitespace is empty, so refused). */
export const requiredText = (max: number) =>
  z
    .string({ error: requiredAs('a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

/** Optional text: trimmed, at most max characters; empty counts as not given (null too, by nullsAsAbsent). */
const optionalText = (max: number) => z.string({ error: 'must be a string' }).trim().max(max, `must be at most ${max} characters`).optional();

/** A phone as sent: 7–20 characters, then it must normalise to a reachable mobile number (E.164). */
/** How a mobile number may be written, for parameter descriptions. */
export const PHONE_FORMAT =
  "Any format ('98765 43210', '+91-98765-43210', '09876543210'), matched on the number; numbers without a country code are Indian. 7-20 characters.";

export const phoneInput = z
  .string({ error: requiredAs('a mobile number as a string, e.g. "98765 43210"') })
  .trim()
  .min(7, 'must be at least 7 characters')
  .max(20, 'must be at most 20 characters')
  .superRefine((value, ctx) => {
    if (value.length < 7 || value.length > 20) return;
    const result = normalizePhone(value);
    if (!result.ok) ctx.addIssue({ code: 'custom', message: result.message });
  });

const optionalPhone = z
  .string({ error: 'must be a string' })
  .trim()
  .max(20, 'must be at most 20 characters')
  .superRefine((value, ctx) => {
    if (value === '' || value.length > 20) return;
    const result = normalizePhone(value);
    if (!result.ok) ctx.addIssue({ code: 'custom', message: result.message });
  })
  .optional();

const QUANTITY_TEXT = /^\d{1,12}(?:\.\d{1,3})?$/;
const QUANTITY_RULE = 'must be a number greater than 0 with at most 3 decimals, e.g. 2 or "2.5"';

/**
 * Quantity as a JSON number or a decimal string; `2`, `"2"` and `"2.000"` are equal. Exponents in strings
 * ("1e3") are refused; a JSON number written 1e3 is the number 1000 once parsed, so it is accepted. The number's
 * bounds are published; whether a fraction is allowed depends on the product's unit, known once the item is looked
 * up (order-input.ts).
 */
export const quantityInput = z
  .union([z.number().meta({ minimum: 0.001, maximum: MAX_QUANTITY }), z.string()], { error: QUANTITY_RULE })
  .superRefine((value, ctx) => {
    const parsed = parseQuantity(value);
    if (parsed === null) ctx.addIssue({ code: 'custom', message: QUANTITY_RULE });
    else if (parsed.gt(MAX_QUANTITY)) ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_QUANTITY}` });
  })
  .describe(
    `Units to order: more than 0 and at most ${MAX_QUANTITY}, with up to 3 decimals for a product sold by measure (unit KG, G, L, ML, M...); a whole number for one sold in counted units (PCS, BOX, PAC, SET...).`,
  );

/** The quantity as an exact decimal, or null when it is not a positive number with at most 3 decimals. */
export function parseQuantity(value: number | string): Decimal | null {
  let d: Decimal;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    d = new Decimal(value);
  } else {
    const text = value.trim();
    if (!QUANTITY_TEXT.test(text)) return null;
    d = new Decimal(text);
  }
  if (d.lte(0) || d.decimalPlaces() > 3) return null;
  return d;
}

export const emailInput = z
  .string({ error: 'must be a string' })
  .trim()
  .max(254, 'must be at most 254 characters')
  .refine((v) => v === '' || v.length > 254 || z.regexes.email.test(v), 'must be an email address, e.g. name@example.com')
  .optional();

/** The address fields; every optional one takes null as not given. */
const deliveryAddressFields = nullsAsAbsent(
  z.object(
    {
      name: optionalText(160),
      line1: requiredText(200),
      line2: optionalText(200),
      city: requiredText(80),
      pincode: z
        .string({ error: requiredAs('the 6-digit PIN code as a string, e.g. "560038"') })
        .trim()
        .regex(/^\d{6}$/, 'must be a 6-digit Indian PIN code, e.g. "560038"'),
      state: optionalText(80),
      phone: optionalPhone,
    },
    { error: requiredAs('an object { line1, city, pincode }') },
  ),
);

export const deliveryAddressInput = deliveryAddressFields.superRefine((a, ctx) => {
  // The PIN decides the state; a shared PIN needs the state named, a contradicting one is refused.
  if (!/^\d{6}$/.test(a.pincode) || (a.state?.length ?? 0) > 80) return;
  const resolved = resolveDeliveryState(a.pincode, a.state);
  if (!resolved.ok) {
    const onPin = /^PIN code .* is not valid/.test(resolved.message);
    ctx.addIssue({ code: 'custom', path: [onPin ? 'pincode' : 'state'], message: resolved.message });
  }
});

export const orderItemInput = z.object(
  {
    product_id: z
      .string({ error: requiredAs("a variant's sku, variant_id or barcode as a string") })
      .trim()
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters'),
    quantity: quantityInput,
  },
  { error: requiredAs('an object { product_id, quantity }') },
);

/**
 * POST /orders body; also the `place_order` tool's parameters. Unknown fields (prices too) are dropped.
 * Every optional field, here and in the nested objects, takes null as not given (nullsAsAbsent).
 */
export const placeOrderBody = nullsAsAbsent(
  z.object(
    {
      customer: nullsAsAbsent(
        z.object(
          {
            name: requiredText(120),
            phone: phoneInput,
            email: emailInput,
          },
          { error: requiredAs('an object { name, phone }') },
        ),
      ),
      items: z
        .array(orderItemInput, { error: requiredAs('a list of { product_id, quantity }') })
        .min(1, 'must list at least 1 item')
        .max(MAX_ITEMS, `must list at most ${MAX_ITEMS} items`),
      external_reference: requiredText(100),
      notes: optionalText(500),
      delivery_address: deliveryAddressInput
        .optional()
        .describe(
          "Where this order ships; leave it out (or null) to use the customer's address on file. An object: line1 (1-200 characters), city (1-80) and pincode (six digits, as a string) required; line2, state, name (the recipient, if not the customer) and phone (the courier's, if not the customer's) optional.",
        ),
      payment: z.enum(['cod', 'prepaid'], { error: 'must be "cod" or "prepaid"' }).default('prepaid'),
      payment_reference: optionalText(100),
      marketing_consent: marketingConsentInput,
    },
    { error: 'must be a JSON object { customer, items, external_reference }' },
  ),
);

export type PlaceOrderBody = z.output<typeof placeOrderBody>;

/** A draft as staff write it (`order draft create`): the POST /orders body, external_reference optional. */
export const draftOrderBody = placeOrderBody.omit({ marketing_consent: true }).extend({ external_reference: z.string().trim().min(1).max(100).nullish() });
export type DraftOrderBody = z.output<typeof draftOrderBody>;

export const orderLineSchema = z.object({
  sku: z.string(),
  name: z.string(),
  quantity: z.string(),
  unit_price: z.string(),
  line_total: z.string(),
});

export const deliveryAddressSchema = z.object({
  name: z.string().nullable(),
  line1: z.string(),
  line2: z.string().nullable(),
  city: z.string(),
  state: z.string(),
  pincode: z.string(),
  phone: z.string().nullable(),
});

/** Response of order creation. */
export const orderSchema = z.object({
  order_id: z.string(),
  order_number: z.string(),
  order_status: z.string(),
  amount: z.string(),
  currency: z.string(),
  created_at: z.string(),
  external_reference: z.string(),
  items: z.array(orderLineSchema),
  payment: z.enum(['cod', 'prepaid']),
  delivery_address: deliveryAddressSchema.nullable(),
  cod_confirmation: codConfirmationSchema,
});

export const orderSummarySchema = z.object({
  order_id: z.string(),
  order_number: z.string(),
  order_status: z.string(),
  status_label: z.string(),
  amount: z.string(),
  currency: z.string(),
  order_date: z.string(),
  external_reference: z.string().nullable(),
  cod_confirmation: codConfirmationSchema,
});

export const shipmentSchema = z.object({
  awb: z.string().nullable(),
  courier: z.string().nullable(),
  status: z.string(),
  status_label: z.string(),
  tracking_url: z.string().nullable(),
  delivered_at: z.string().nullable(),
});

export const creditNoteSchema = z.object({
  credit_note_number: z.string(),
  reason: z.string().describe('`cancelled` or `returned`: why the invoice was reversed'),
  total: z.string(),
  issued_at: z.string(),
  url: z
    .string()
    .nullable()
    .describe('signed link to the credit note as a PDF, valid for a limited time (24 hours by default); fetch it when needed. null in webhook events'),
});

export const invoiceSchema = z.object({
  invoice_number: z.string(),
  payment_status: z.string(),
  total: z.string(),
  amount_due: z.string(),
  url: z
    .string()
    .nullable()
    .describe(
      'signed link to the GST invoice as a PDF, valid for a limited time (24 hours by default); fetch it when needed, do not store it. null in webhook events: look the order up for a fresh link',
    ),
  credit_note: creditNoteSchema
    .nullable()
    .describe('the credit note reversing this invoice when the order was cancelled or returned after invoicing; nothing is then owed on it'),
});

/** Response of order lookup. */
export const orderLookupSchema = orderSummarySchema.extend({
  customer: z.object({
    name: z.string(),
    phone: z.string().nullable(),
    messaging_opted_out: z.boolean().describe('The customer asked not to receive messages from the company on the messaging channel; respect it.'),
    may_send: maySendSchema,
  }),
  items: z.array(orderLineSchema),
  shipment: shipmentSchema.nullable(),
  invoice: invoiceSchema.nullable(),
});

export const orderLookupParams = z.object({
  reference: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .describe('Order number, order_id or external_reference. Max 100 characters.'),
});

export const orderLookupQuery = z.object({
  phone: z
    .string({ error: 'must be given once, as a string' })
    .optional()
    .describe(`Optional: the customer's mobile number; pass it whenever answering a customer, and the order is returned only if it is theirs. ${PHONE_FORMAT}`),
});

export type Order = z.infer<typeof orderSchema>;
export type OrderSummary = z.infer<typeof orderSummarySchema>;
export type OrderLookup = z.infer<typeof orderLookupSchema>;
export type OrderLine = z.infer<typeof orderLineSchema>;
export type DeliveryAddress = z.infer<typeof deliveryAddressSchema>;
