import { z } from 'zod';
import { PHONE_FORMAT } from './orders.js';

/**
 * WhatsApp Cloud API order messages as Meta documents them for India (payments-in: payment gateways, payment links,
 * UPI intent; order status and order details templates; test/fixtures/whatsapp/README.md names the pages and their
 * dates). These schemas are the documented shapes and limits: the builder's output is checked against them in tests,
 * and so are the documentation's own examples. Lengths are counted in UTF-16 code units (`textLength`), the strictest
 * of the ways a character may be counted, so a Hindi name or an emoji that fits here fits Meta's count too.
 */

export const META_LIMITS = {
  /** reference_id: English letters, digits, underscores, dashes or dots; case sensitive; at most 35 characters */
  referenceId: /^[A-Za-z0-9_.-]{1,35}$/,
  bodyText: 1024,
  footerText: 60,
  itemName: 60,
  /** tax, shipping and discount descriptions */
  amountDescription: 60,
  /** order_status order.description */
  statusDescription: 120,
  offset: 100,
} as const;

/** Meta's count of a text: UTF-16 code units (an emoji counts 2, a Devanagari letter or mark 1). */
export const textLength = (text: string): number => text.length;

const text = (max: number) =>
  z
    .string()
    .min(1)
    .refine((t) => textLength(t) <= max, `must be at most ${max} characters`);

/** An amount as Meta takes it: an integer value and the offset it is divided by (100: paise). */
export const metaAmount = z.object({ value: z.number().int().nonnegative(), offset: z.literal(META_LIMITS.offset) });
const describedAmount = metaAmount.extend({ description: text(META_LIMITS.amountDescription).optional() });

export const META_ORDER_STATUSES = ['pending', 'processing', 'partially-shipped', 'shipped', 'completed', 'canceled'] as const;
export type MetaOrderStatus = (typeof META_ORDER_STATUSES)[number];

const paymentSetting = z.discriminatedUnion('type', [
  z.object({ type: z.literal('payment_link'), payment_link: z.object({ uri: z.url() }) }),
  z.object({
    type: z.literal('payment_gateway'),
    payment_gateway: z.object({
      type: z.enum(['razorpay', 'payu', 'billdesk', 'zaakpay']),
      configuration_name: z.string().min(1).max(60),
      razorpay: z.object({ receipt: z.string().optional(), notes: z.record(z.string(), z.string()).optional() }).optional(),
    }),
  }),
  z.object({ type: z.literal('upi_intent_link'), upi_intent_link: z.object({ link: z.string().startsWith('upi://pay?') }) }),
]);

const orderItem = z.object({
  retailer_id: z.string().min(1),
  name: text(META_LIMITS.itemName),
  amount: metaAmount,
  sale_amount: metaAmount.optional(),
  quantity: z.number().int().positive(),
  country_of_origin: z.string().optional(),
  importer_name: z.string().optional(),
});

/** The parameters of review_and_pay (also the order_details of an order details template's button). */
export const orderDetailsParameters = z
  .object({
    reference_id: z.string().regex(META_LIMITS.referenceId, 'English letters, digits, _ - . only; at most 35 characters'),
    type: z.enum(['physical-goods', 'digital-goods']),
    payment_type: z.string().optional(),
    payment_configuration: z.string().optional(),
    payment_settings: z.array(paymentSetting).min(1).optional(),
    currency: z.literal('INR'),
    total_amount: metaAmount,
    order: z.object({
      status: z.literal('pending'),
      catalog_id: z.string().optional(),
      items: z.array(orderItem).min(1),
      subtotal: metaAmount,
      tax: describedAmount,
      shipping: describedAmount.optional(),
      discount: describedAmount.extend({ discount_program_name: z.string().optional() }).optional(),
      expiration: z.object({ timestamp: z.string(), description: z.string() }).optional(),
    }),
  })
  .superRefine((p, ctx) => {
    // Meta's rules: subtotal = Σ item amount (or sale_amount) × quantity; total = subtotal + tax + shipping − discount
    const o = p.order;
    const subtotal = o.items.reduce((sum, i) => sum + (i.sale_amount ?? i.amount).value * i.quantity, 0);
    if (subtotal !== o.subtotal.value)
      ctx.addIssue({ code: 'custom', path: ['order', 'subtotal'], message: `is ${o.subtotal.value}, items add up to ${subtotal}` });
    const total = o.subtotal.value + o.tax.value + (o.shipping?.value ?? 0) - (o.discount?.value ?? 0);
    if (total !== p.total_amount.value)
      ctx.addIssue({ code: 'custom', path: ['total_amount'], message: `is ${p.total_amount.value}, subtotal + tax + shipping − discount is ${total}` });
    if (!p.payment_settings && !p.payment_configuration) ctx.addIssue({ code: 'custom', path: ['payment_settings'], message: 'a way to pay is required' });
    if (!o.catalog_id && o.items.some((i) => !i.country_of_origin || !i.importer_name))
      ctx.addIssue({ code: 'custom', path: ['order', 'items'], message: 'without catalog_id each item needs country_of_origin and importer_name' });
  });

const orderStatusParameters = z.object({
  reference_id: z.string().regex(META_LIMITS.referenceId),
  order: z.object({ status: z.enum(META_ORDER_STATUSES), description: text(META_LIMITS.statusDescription).optional() }),
});

const envelope = { messaging_product: z.literal('whatsapp'), recipient_type: z.literal('individual'), to: z.string().min(1) };

/** The interactive object of an order_details message. */
export const orderDetailsInteractive = z.object({
  type: z.literal('order_details'),
  header: z.object({ type: z.string() }).passthrough().optional(),
  body: z.object({ text: text(META_LIMITS.bodyText) }),
  footer: z.object({ text: text(META_LIMITS.footerText) }).optional(),
  action: z.object({ name: z.literal('review_and_pay'), parameters: orderDetailsParameters }),
});

/** The interactive object of an order_status message. */
export const orderStatusInteractive = z.object({
  type: z.literal('order_status'),
  body: z.object({ text: text(META_LIMITS.bodyText) }),
  footer: z.object({ text: text(META_LIMITS.footerText) }).optional(),
  action: z.object({ name: z.literal('review_order'), parameters: orderStatusParameters }),
});

/** An interactive order_details message, as POSTed to /{phone-number-id}/messages. */
export const orderDetailsMessage = z.object({ ...envelope, type: z.literal('interactive'), interactive: orderDetailsInteractive });

/** An interactive order_status message. */
export const orderStatusMessage = z.object({ ...envelope, type: z.literal('interactive'), interactive: orderStatusInteractive });

const templateHead = {
  name: z.string().regex(/^[a-z0-9_]{1,512}$/),
  language: z.object({ policy: z.literal('deterministic'), code: z.string().min(2) }),
};

/** The order details template (an "open order details" button), for outside the 24-hour customer service window. */
export const orderDetailsTemplateMessage = z.object({
  ...envelope,
  type: z.literal('template'),
  template: z.object({
    ...templateHead,
    components: z
      .array(
        z.union([
          z.object({
            type: z.literal('button'),
            sub_type: z.literal('order_details'),
            index: z.number().int().nonnegative(),
            parameters: z.tuple([z.object({ type: z.literal('action'), action: z.object({ order_details: orderDetailsParameters }) })]),
          }),
          z.object({ type: z.enum(['header', 'body']), parameters: z.array(z.object({ type: z.string() }).passthrough()) }),
        ]),
      )
      .refine((c) => c.some((x) => x.type === 'button'), 'needs the order_details button'),
  }),
});

/** The order status template, for outside the 24-hour window. */
export const orderStatusTemplateMessage = z.object({
  ...envelope,
  type: z.literal('template'),
  template: z.object({
    ...templateHead,
    components: z
      .array(
        z.union([
          z.object({
            type: z.literal('order_status'),
            parameters: z.tuple([z.object({ type: z.literal('order_status'), order_status: orderStatusParameters })]),
          }),
          z.object({ type: z.literal('body'), parameters: z.array(z.object({ type: z.string() }).passthrough()) }),
        ]),
      )
      .refine((c) => c.some((x) => x.type === 'order_status'), 'needs the order_status component'),
  }),
});

export type OrderDetailsMessage = z.infer<typeof orderDetailsMessage>;
export type OrderStatusMessage = z.infer<typeof orderStatusMessage>;
export type OrderDetailsTemplateMessage = z.infer<typeof orderDetailsTemplateMessage>;
export type OrderStatusTemplateMessage = z.infer<typeof orderStatusTemplateMessage>;
export type WhatsappMessage = OrderDetailsMessage | OrderStatusMessage | OrderDetailsTemplateMessage | OrderStatusTemplateMessage;

/** What the REST door and the tool answer: the message body exactly as the flow POSTs it; free-form for OpenAPI. */
export const whatsappMessageSchema = z
  .object({ messaging_product: z.literal('whatsapp'), to: z.string(), type: z.enum(['interactive', 'template']) })
  .catchall(z.unknown())
  .describe('The message body to POST as it is to the WhatsApp Cloud API `/{phone-number-id}/messages`.');

/** Only real booleans and the strings "true"/"false" (z.coerce.boolean would read "false" as true). */
const queryBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], { error: 'must be true or false' });

export const whatsappMessagesQuery = z.object({
  type: z
    .enum(['order_details', 'order_status'], { error: 'required; send order_details or order_status' })
    .describe(
      "order_details: the bill with items, amounts and a way to pay (the order's live payment link, the payment gateway configuration or UPI intent); order_status: the order's current status.",
    ),
  template: queryBoolean
    .default(false)
    .describe("true: the company's approved template variant, for a customer who has not written in the last 24 hours. Default false (interactive)."),
  phone: z
    .string({ error: 'must be given once, as a string' })
    .optional()
    .describe(`Optional: the customer's mobile number; the messages are built only if the order is theirs. ${PHONE_FORMAT}`),
});
export type WhatsappMessagesQuery = z.output<typeof whatsappMessagesQuery>;

/** A company's messaging settings as the admin sets them: a field left out keeps its value, null clears it. */
export const whatsappSettingsInput = z.object({
  catalog_id: z
    .string()
    .regex(/^\d{1,30}$/, 'must be the Meta catalogue id (digits)')
    .nullable()
    .optional(),
  payment_configuration: z.string().trim().min(1).max(60, 'must be at most 60 characters').nullable().optional(),
  upi_vpa: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{2,255}@[A-Za-z][A-Za-z0-9]{1,63}$/, 'must be a UPI id like shop@okhdfcbank')
    .nullable()
    .optional(),
  upi_payee_name: z.string().trim().min(1).max(60, 'must be at most 60 characters').nullable().optional(),
  template_name: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/, 'must be a template name: lowercase letters, digits, _')
    .nullable()
    .optional(),
  template_language: z
    .string()
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'must be a language code like en or en_US or hi')
    .nullable()
    .optional(),
  status_template_name: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/, 'must be a template name: lowercase letters, digits, _')
    .nullable()
    .optional(),
});
export type WhatsappSettingsInput = z.output<typeof whatsappSettingsInput>;
