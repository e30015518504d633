import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { createCheckoutBody, paymentInstrument, ucpCheckoutSchema, updateCheckoutBody } from '../contract/ucp-checkout.js';
import { UcpError } from '../contract/ucp-wire.js';
import type { CheckoutView } from '../checkout/checkout.service.js';
import type { UcpBusiness } from '../checkout/ucp-settings.service.js';
import { define, read, type ToolContext, type ToolDefinition } from './tool-definition.js';

/**
 * UCP's checkout over MCP (the checkout-mcp binding of UCP 2026-01-11) for the company's own agents, with its key:
 * `create_checkout`, `get_checkout`, `update_checkout`, `complete_checkout`, `cancel_checkout`. Each calls the checkout
 * service the REST binding calls (src/http/routes/ucp.ts) and answers the same checkout JSON; a UCP refusal is a tool
 * error with UCP's code (`UcpError.toErrorBody`). Writes are once per `idempotency_key`, as REST's Idempotency-Key.
 */

const checkoutId = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .describe('The checkout id (chk_…) create_checkout answered');
const idempotencyKey = z
  .string()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .describe(
    'Your unique key for this write (a UUID): the same key with the same arguments answers the first answer again without doing it twice; with other arguments, idempotency_conflict',
  );
const checkoutArg = (schema: typeof createCheckoutBody, what: string) =>
  schema.describe(
    `${what}: line_items [{ item: { id: a variant SKU from browse_catalog }, quantity }], buyer { first_name, last_name, email, phone_number (an Indian mobile, needed to complete) }, ` +
      'fulfillment { methods: [{ type: "shipping", destinations: [{ street_address, address_locality, address_region, postal_code (PIN), address_country: "IN" }], selected_destination_id, groups: [{ selected_option_id }] }] }, discounts { codes }',
  );

/** The company's UCP business; a 403 while it is off (its agents hold a key that works, for a door that is closed). */
async function businessOf({ services, tenant }: ToolContext): Promise<UcpBusiness> {
  const business = await services.ucpSettings.byCompany(tenant.companyId);
  if (!business)
    throw new AppError(
      'forbidden',
      "the company's UCP business is off: an admin turns it on (`npm run admin -- ucp enable`, or PUT /ucp/settings) before checkouts can be taken",
    );
  return business;
}

/** A checkout read: the same JSON as the REST binding's. */
async function answered(ctx: ToolContext, run: (business: UcpBusiness) => Promise<CheckoutView>): Promise<Record<string, unknown>> {
  const business = await businessOf(ctx);
  return ctx.services.ucpDiscovery.checkout(business, await run(business), ctx.origin);
}

/**
 * A checkout write, once per idempotency key (checkout.write, as REST's): the scope names the tool and its checkout, the
 * request is the arguments without the key; a kept refusal is thrown again as it was answered.
 */
async function written(
  ctx: ToolContext,
  scope: string,
  { idempotency_key: key, ...request }: { idempotency_key?: string },
  run: (business: UcpBusiness) => Promise<CheckoutView>,
): Promise<Record<string, unknown>> {
  const business = await businessOf(ctx);
  const answer = await ctx.services.checkout.write({ companyId: business.companyId, scope: `MCP ${scope}`, key, body: request }, async () => ({
    status: 200,
    body: JSON.stringify(await ctx.services.ucpDiscovery.checkout(business, await run(business), ctx.origin)),
  }));
  if (answer.status >= 400) throw UcpError.fromAnswer(answer);
  return JSON.parse(answer.body) as Record<string, unknown>;
}

const writes = (title: string, hints: { destructiveHint: boolean; idempotentHint: boolean }) =>
  ({ title, readOnlyHint: false, openWorldHint: false, ...hints }) as const;

const READY =
  'A checkout is ready_for_complete once every line is in stock and a shipping destination and one of its options are chosen; ' +
  "its messages say what is missing. Amounts are integers in paise (₹1 = 100), GST included. Needs the company's UCP business on (else forbidden).";

export const CHECKOUT_TOOLS: ToolDefinition[] = [
  define({
    name: 'create_checkout',
    title: 'Start a UCP checkout',
    description:
      "Starts a checkout (UCP 2026-01-11): its lines priced from the catalogue and their stock held for the business's hold time. " +
      "Give the destination and pick a fulfillment option (the answer lists each group's options) here or with update_checkout, then complete_checkout. " +
      READY +
      ' Errors: not_found (an unknown item), out_of_stock, validation_failed.',
    input: z.object({ checkout: checkoutArg(createCheckoutBody, 'The checkout to start'), idempotency_key: idempotencyKey.optional() }),
    output: ucpCheckoutSchema,
    annotations: writes('Start a UCP checkout', { destructiveHint: false, idempotentHint: false }),
    run: (ctx, args) => written(ctx, 'create_checkout', args, (business) => ctx.services.checkout.create(business, args.checkout, undefined)),
  }),
  define({
    name: 'get_checkout',
    title: 'Read a UCP checkout',
    description: 'One checkout as it is now (a completed one as it was completed, with its order). ' + READY + ' Errors: not_found.',
    input: z.object({ id: checkoutId }),
    output: ucpCheckoutSchema,
    annotations: read('Read a UCP checkout'),
    run: (ctx, args) => answered(ctx, (business) => ctx.services.checkout.get(business, args.id)),
  }),
  define({
    name: 'update_checkout',
    title: 'Change a UCP checkout',
    description:
      'Changes an open checkout: line_items replace its lines (their holds move in one step; send them all every time); buyer, fulfillment and discounts left out are kept. ' +
      READY +
      ' Errors: not_found, checkout_not_modifiable (completed or canceled), checkout_expired, out_of_stock.',
    input: z.object({ id: checkoutId, checkout: checkoutArg(updateCheckoutBody, 'The checkout as it should be'), idempotency_key: idempotencyKey.optional() }),
    output: ucpCheckoutSchema,
    annotations: writes('Change a UCP checkout', { destructiveHint: false, idempotentHint: true }),
    run: (ctx, args) => written(ctx, `update_checkout ${args.id}`, args, (business) => ctx.services.checkout.update(business, args.id, args.checkout)),
  }),
  define({
    name: 'complete_checkout',
    title: 'Complete a UCP checkout (place its order)',
    description:
      'Turns a ready_for_complete checkout into a confirmed order (look it up with get_order, its reference being the checkout id); the answer carries order.id. ' +
      'payment_data names a handler the checkout\'s payment.handlers offer: { "id": "instr_1", "handler_id": "cod" } is cash on delivery (addresses in India). ' +
      'Errors: missing (no destination or option chosen, or no Indian mobile number), invalid_address, invalid_payment, payment_declined, checkout_not_modifiable, checkout_expired, checkout_changed (read it and complete again), out_of_stock.',
    input: z.object({
      id: checkoutId,
      payment_data: paymentInstrument.describe('The payment instrument: { id, handler_id (e.g. "cod"), credential? }'),
      idempotency_key: idempotencyKey,
    }),
    output: ucpCheckoutSchema,
    annotations: writes('Complete a UCP checkout', { destructiveHint: false, idempotentHint: true }),
    run: (ctx, args) =>
      written(ctx, `complete_checkout ${args.id}`, args, (business) => ctx.services.checkout.complete(business, args.id, { payment_data: args.payment_data })),
  }),
  define({
    name: 'cancel_checkout',
    title: 'Cancel a UCP checkout',
    description:
      'Cancels an open (or expired) checkout and releases its held stock at once. Errors: not_found, checkout_not_modifiable (completed or canceled).',
    input: z.object({ id: checkoutId, idempotency_key: idempotencyKey }),
    output: ucpCheckoutSchema,
    annotations: writes('Cancel a UCP checkout', { destructiveHint: true, idempotentHint: true }),
    run: (ctx, args) => written(ctx, `cancel_checkout ${args.id}`, args, (business) => ctx.services.checkout.cancel(business, args.id)),
  }),
];
