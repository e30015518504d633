import { z } from 'zod';
import { pageEnvelope } from '../contract/paging.js';
import { browseQuerySchema, browseResponseSchema, categoriesResponseSchema, productDetailResponseSchema, productIdSchema } from '../contract/catalogue.js';
import { customerLookupQuery, customerSchema, setConsentBody } from '../contract/customers.js';
import { orderLookupParams, orderLookupQuery, orderLookupSchema, orderSchema, placeOrderBody } from '../contract/orders.js';
import { codConfirmationArgs } from '../contract/cod-answer.js';
import { paymentLinkBody, paymentLinkParams, paymentLinkResponse } from '../contract/payment-links.js';
import { whatsappMessageSchema, whatsappMessagesQuery } from '../contract/whatsapp.js';
import { itemLookupSchema, itemsQuerySchema, itemsResponseSchema, itemResponseSchema } from '../contract/items.js';
import { codAvailabilityQuery, codAvailabilitySchema } from '../contract/cod.js';
import { correctionArgs, correctionSchema, customerDataArgs, customerDataSchema, erasureArgs, erasureSchema } from '../contract/privacy.js';
import { AppError } from '../contract/errors.js';
import { keyActor, type Tenant } from '../keys/keys.service.js';
import { CHECKOUT_TOOLS } from './checkout-tools.js';
import { define, read, type ToolDefinition } from './tool-definition.js';

export { define, type ToolAnnotations, type ToolContext, type ToolDefinition } from './tool-definition.js';

/**
 * Every MCP tool: the same zod schemas as REST validate the arguments (their parameter descriptions written
 * once, in src/contract), the same services answer, and the result is the REST response body. Tool
 * descriptions are written for a model choosing and calling tools.
 */
/** The data-rights tools need the key permission `privacy`, as their REST routes do (the same 403 `forbidden`). */
function privacyActor(tenant: Tenant) {
  if (!tenant.permissions.includes('privacy'))
    throw new AppError('forbidden', 'this API key does not have the "privacy" permission; the company admin gives it when creating a key');
  return keyActor(tenant);
}

export const TOOLS: ToolDefinition[] = [
  define({
    name: 'browse_catalog',
    title: 'Browse or search the catalogue',
    guide: { step: 1, text: 'find products with {name}' },
    description:
      "Lists the company's active products alphabetically, each with all its variants, prices (INR, GST included) and live stock. " +
      'Use it to answer "what do you have", to search ("red shirt xl" matches every word across name, SKU, description, variant names, options and barcodes), ' +
      'or to filter by category or brand (id, slug or name from list_categories; sub-categories included). ' +
      'To order, pick a variant and send its `sku` as items[].product_id to place_order. A variant can be ordered only when `in_stock` is true and up to `available` units. ' +
      'Pages hold up to 50 products: continue with offset += limit while has_more is true. Prices always come from here; never invent one.',
    input: browseQuerySchema,
    output: browseResponseSchema,
    annotations: read('Browse or search the catalogue'),
    keyInFirstStatement: true,
    run: async ({ services, tenant, origin }, args) => pageEnvelope(await services.catalogue.browse(tenant, args, origin), args),
  }),
  define({
    name: 'get_product_details',
    title: 'Get one product in full',
    description:
      'One product with all its variants, stock and every photo (signed links valid 10 minutes; fetch them when needed, do not store them). ' +
      "The id may be a product id, a product SKU, or a variant's SKU, id or barcode; when it names one variant, matched_variant_id says which. " +
      'Answers not_found for unknown or inactive products.',
    input: productIdSchema,
    output: productDetailResponseSchema,
    annotations: read('Get one product in full'),
    keyInFirstStatement: true,
    run: async ({ services, tenant, origin }, args) => ({ data: await services.catalogue.getProduct(tenant, args.id, origin) }),
  }),
  define({
    name: 'list_categories',
    title: 'List categories and brands',
    description:
      'All categories (with parent_id for the tree and the number of active products filed directly under each) and all brands. ' +
      'Use a category or brand slug as the category/brand filter of browse_catalog.',
    input: z.object({}),
    output: categoriesResponseSchema,
    annotations: read('List categories and brands'),
    keyInFirstStatement: true,
    run: async ({ services, tenant }) => ({ data: await services.catalogue.listCategories(tenant) }),
  }),
  define({
    name: 'find_customer',
    title: 'Find a customer by phone',
    guide: { step: 4, text: 'customers with {name}' },
    description:
      'Finds the customer with this mobile number (matched on the number, not the formatting) with their address on file and their latest orders, newest first. ' +
      'If messaging_opted_out is true the customer asked not to be messaged on the messaging channel: do not send them messages. ' +
      'may_send says what may be sent now per purpose and channel (order updates unless withdrawn; marketing only with consent): check it before sending anything. ' +
      "consents shows each consent as given, withdrawn or not_asked; privacy_notice_url is the company's privacy notice to share when asking for consent. " +
      'Answers not_found when no customer has this number.',
    input: customerLookupQuery,
    output: z.object({ data: customerSchema }),
    annotations: read('Find a customer by phone'),
    run: async ({ services, tenant }, args) => ({ data: await services.customers.findByPhone(tenant, args) }),
  }),
  define({
    name: 'set_customer_consent',
    title: "Record a customer's consent",
    description:
      'Records the customer\'s own answer about messages: purpose "order_updates" (about their orders) or "marketing" (offers and news), ' +
      'channel "messaging" or "email", state "given" or "withdrawn". Withdrawing is this same call. Send only what the customer said, in their own words: ' +
      'never assume consent. The current state again changes nothing (changed: false). Returns the customer as find_customer does, with may_send updated. ' +
      'Answers not_found when no customer has this number.',
    input: setConsentBody,
    output: z.object({ data: customerSchema, changed: z.boolean() }),
    annotations: { title: "Record a customer's consent", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ services, tenant }, args) => {
      const { customer, changed } = await services.customers.setConsent(tenant.companyId, args, { source: 'mcp', actor: tenant.keyPrefix });
      return { data: customer, changed };
    },
  }),
  define({
    name: 'get_order',
    title: 'Look up an order',
    guide: { step: 3, text: "look orders up with {name} (pass the customer's phone when answering a customer)" },
    description:
      'One order with its items, status (status_label is the status in words to show a customer), shipment tracking and invoice (amount_due is what is still owed; invoice.url is a link to the GST invoice PDF to send the customer when they ask for their invoice). ' +
      'The reference may be the order number (e.g. ORD-100001), the order_id, or the external_reference it was placed with. ' +
      "When answering a customer, ALWAYS pass their phone: the order is then returned only if it is theirs (otherwise not_found), so one customer never sees another's order.",
    input: orderLookupParams.extend(orderLookupQuery.shape),
    output: z.object({ data: orderLookupSchema }),
    annotations: read('Look up an order'),
    keyInFirstStatement: true,
    run: async ({ services, tenant, origin }, args) => ({ data: await services.orders.lookup(tenant, args.reference, args.phone, origin) }),
  }),
  define({
    name: 'get_order_whatsapp_messages',
    title: "Build an order's WhatsApp message",
    description:
      "The WhatsApp Cloud API message for an order, ready to POST as it is to /{phone-number-id}/messages: type order_details (the bill: items by their catalogue retailer_id, amounts, and a way to pay — the order's payment link, the payment gateway or UPI) or order_status (the order's current status). " +
      'template: true gives the approved template variant, for a customer who has not written in the last 24 hours. ' +
      "The reference is as for get_order; pass the customer's phone when answering a customer. Answers unprocessable when the message cannot be built (nothing owed, no catalogue id, no way to pay, no template set) with details naming what is missing.",
    input: orderLookupParams.extend(whatsappMessagesQuery.shape),
    output: z.object({ data: whatsappMessageSchema }),
    annotations: read("Build an order's WhatsApp message"),
    run: async ({ services, tenant }, { reference, ...query }) => ({ data: await services.whatsapp.messages(tenant, reference, query) }),
  }),
  define({
    name: 'place_order',
    title: 'Place a confirmed order',
    guide: { step: 2, text: 'order a variant by its sku with {name} (a new external_reference per new order, the same one when retrying)' },
    description:
      'Creates a confirmed order and reserves its stock at once (the UCP checkout tools, create_checkout to complete_checkout, are the other way to sell). ' +
      'items[].product_id is a variant SKU from browse_catalog (a variant id or barcode also works); quantity is a number with up to 3 decimals (e.g. 1.5 for KG items). ' +
      'Prices are never sent: they come from the catalogue, GST included. payment is "prepaid" (default) or "cod" (cash on delivery). ' +
      'Give delivery_address (line1, city, 6-digit pincode; state only for PINs shared by two states) unless the customer confirmed the address on file. ' +
      'external_reference is your unique id for this order: use a NEW one for every new order, and the SAME one when retrying after a timeout or error — a repeat never creates a second order and returns the original with duplicate: true. ' +
      'Errors: insufficient_stock lists what is short (offer the available quantity), not_found lists unknown product_ids, validation_failed lists each bad field, ' +
      "unprocessable with details[].rule when a COD order breaks the company's COD rules (offer prepaid; check_cod_availability asks first). " +
      "marketing_consent records the customer's own answer to marketing messages if you asked it while ordering; never assume it.",
    input: placeOrderBody,
    output: z.object({ data: orderSchema, duplicate: z.literal(true).optional() }),
    annotations: { title: 'Place a confirmed order', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ services, tenant }, args) => {
      const { order, duplicate } = await services.orders.place(tenant, args, 'place_order');
      return duplicate ? { data: order, duplicate: true } : { data: order };
    },
  }),
  define({
    name: 'confirm_cod_order',
    title: "Record the buyer's COD confirmation",
    description:
      'For a cash-on-delivery order whose cod_confirmation.status is "pending" (the company confirms COD orders before booking a courier; get_order and find_customer show it): ' +
      'record the buyer\'s answer. answer "confirm": the order will ship (a courier is booked when the company books automatically). answer "decline": the order is cancelled and its stock released; say so to the buyer. ' +
      'Ask the buyer plainly first and send exactly what they chose. The same answer again changes nothing; the other answer once settled is refused (conflict); an order asked nothing answers unprocessable. ' +
      'When answering for a customer, ALWAYS pass their phone: the order is found only if it is theirs (otherwise not_found). Returns the order as get_order does.',
    input: codConfirmationArgs,
    output: z.object({ data: orderLookupSchema }),
    annotations: { title: "Record the buyer's COD confirmation", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ services, tenant, origin }, args) => ({
      data: await services.codConfirmations.answer(tenant, args.reference, args.phone, args.answer, origin),
    }),
  }),
  define({
    name: 'create_payment_link',
    title: 'Payment link for a COD order',
    description:
      'Makes a Razorpay payment link for what a cash-on-delivery order still owes, so the buyer can pay now instead of in cash (COD to prepaid on the same order). ' +
      'Only for a COD order not yet shipped; not for prepaid, shipped, delivered, cancelled or returned orders (unprocessable). ' +
      'The service does not send the link: send short_url to the customer yourself. Asking again while the order has a live link for the amount due answers that same link (existing: true), never a second one. ' +
      'When the customer pays, the same order becomes prepaid (get_order shows payment prepaid); nothing else changes. When acting for a customer, ALWAYS pass their phone: only their order is found. ' +
      'unavailable means the payment provider did not answer and nothing was made: try again shortly.',
    input: paymentLinkParams.extend(paymentLinkBody.shape),
    output: paymentLinkResponse,
    annotations: { title: 'Payment link for a COD order', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async ({ services, tenant }, { reference, ...body }) => {
      const { link, existing } = await services.paymentLinks.create(tenant, reference, body);
      return existing ? { data: link, existing: true } : { data: link };
    },
  }),
  define({
    name: 'check_cod_availability',
    title: 'Check whether cash on delivery is available',
    description:
      "Read-only: whether a cash-on-delivery order would be accepted now under the company's COD rules, before offering COD to the customer. " +
      "Pass the delivery address's 6-digit pincode, the customer's phone (for their parcels returned to origin) and the order amount in rupees as a string (GST included, as place_order would come to). " +
      'available is false when a rule refuses COD: refusals names each (blocked_pincode, max_order_value, rto_threshold) with a message; offer prepaid payment then. ' +
      'Rules whose parameter you left out are listed in not_checked. place_order with payment "cod" applies exactly these rules.',
    input: codAvailabilityQuery,
    output: z.object({ data: codAvailabilitySchema }),
    annotations: read('Check whether cash on delivery is available'),
    run: async ({ services, tenant }, args) => ({ data: await services.codRules.check(tenant, args) }),
  }),
  define({
    name: 'export_customer_data',
    title: 'Everything held about a customer (right of access)',
    description:
      "For a customer's request to see their data (India's DPDP Act): one document of everything the company holds about the customer found by phone or customer_id " +
      '(exactly one): record, consent history, orders with lines, addresses, shipments, invoices, payments, payment links, checkout sessions and events. ' +
      'Needs a key with the privacy permission (otherwise forbidden). Recorded in the audit trail.',
    input: customerDataArgs,
    output: z.object({ data: customerDataSchema }),
    annotations: { title: 'Everything held about a customer', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ services, tenant }, args) => ({ data: await services.customerData.access(tenant.companyId, privacyActor(tenant), args) }),
  }),
  define({
    name: 'correct_customer_data',
    title: "Correct a customer's name, e-mail or address",
    description:
      "For a customer's request to correct their data: the name, email and/or address given replace those on the record of the customer found by phone or customer_id; " +
      "a corrected address also goes on the customer's orders not yet shipped. An empty email removes it. Needs the privacy permission. Recorded in the audit trail.",
    input: correctionArgs,
    output: z.object({ data: correctionSchema }),
    annotations: { title: "Correct a customer's data", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ services, tenant }, args) => ({ data: await services.customerData.correct(tenant.companyId, privacyActor(tenant), args) }),
  }),
  define({
    name: 'erase_customer_data',
    title: "Erase a customer's personal data",
    description:
      "For a customer's request to erase their data: irreversibly removes the personal data of the customer found by phone or customer_id everywhere it is held, " +
      'keeping what tax law requires (the report lists it). Refused (conflict, details list the orders) while an order is not yet delivered, unless cancel_open_orders is true ' +
      '(drafts, confirmed and packed orders are cancelled). Confirm with the person first: it cannot be undone. Again: already_erased true. Needs the privacy permission.',
    input: erasureArgs,
    output: z.object({ data: erasureSchema }),
    annotations: { title: "Erase a customer's personal data", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ services, tenant }, args) => ({ data: await services.customerData.erase(tenant.companyId, privacyActor(tenant), args) }),
  }),
  ...CHECKOUT_TOOLS,
  define({
    name: 'search_products',
    title: 'Search orderable items (v1.0, flat)',
    older: true,
    description:
      'Kept for agents built on v1.0; prefer browse_catalog. A flat list of orderable items, one row per active variant: sku (send it as items[].product_id), name, price (INR, GST included), available and in_stock. ' +
      'Search words must all match; page with limit/offset while has_more is true.',
    input: itemsQuerySchema,
    output: itemsResponseSchema,
    annotations: read('Search orderable items (v1.0)'),
    run: async ({ services, tenant }, args) => pageEnvelope(await services.items.search(tenant, args), args),
  }),
  define({
    name: 'get_product',
    title: 'Get one orderable item (v1.0, flat)',
    older: true,
    description:
      'Kept for agents built on v1.0; prefer get_product_details. One orderable item (sku, name, price, available, in_stock) by variant SKU, variant id or barcode.',
    input: itemLookupSchema,
    output: itemResponseSchema,
    annotations: read('Get one orderable item (v1.0)'),
    run: async ({ services, tenant }, args) => ({ data: await services.items.get(tenant, args.id) }),
  }),
];
