import { z } from 'zod';
import { MAX_ITEMS, MAX_QUANTITY } from './orders.js';

/**
 * The Universal Commerce Protocol (UCP) as this business speaks it: version 2026-01-11, the one the pinned
 * conformance suite speaks (docs/ucp.md). Requests are read leniently, as UCP asks (members we do not know are
 * ignored, never refused); what we answer is built member by member in src/checkout/ucp-output.ts, so nothing of
 * ours leaks into an answer by accident.
 */

export const MAX_CODES = 10;
export const MAX_DESTINATIONS = 20;
const MAX_ID = 128;

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const id = text(MAX_ID).min(1, 'must not be empty');

/** A postal address as UCP writes it (schema.org PostalAddress names). */
export const ucpAddress = z
  .object({
    id: id.optional(),
    street_address: text(200).optional(),
    extended_address: text(200).optional(),
    address_locality: text(100).optional(),
    address_region: text(100).optional(),
    postal_code: text(20).optional(),
    address_country: text(2).optional(),
    first_name: text(100).optional(),
    last_name: text(100).optional(),
    full_name: text(200).optional(),
    phone_number: text(20).optional(),
  })
  .loose();
export type UcpAddress = z.infer<typeof ucpAddress>;

const lineItemIn = z
  .object({
    id: id.optional(),
    item: z.object({ id, title: text(500).optional() }).loose(),
    quantity: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`),
  })
  .loose();

const consent = z.record(z.string(), z.boolean());

export const ucpBuyer = z
  .object({
    email: text(254).optional(),
    phone_number: text(20).optional(),
    first_name: text(100).optional(),
    last_name: text(100).optional(),
    full_name: text(200).optional(),
    fullName: text(200).optional(),
    consent: consent.optional(),
  })
  .loose();
export type UcpBuyer = z.infer<typeof ucpBuyer>;

const groupIn = z.object({ id: id.optional(), line_item_ids: z.array(id).max(MAX_ITEMS).optional(), selected_option_id: id.nullish() }).loose();

const methodIn = z
  .object({
    id: id.optional(),
    type: z.enum(['shipping', 'pickup']).default('shipping'),
    line_item_ids: z.array(id).max(MAX_ITEMS).optional(),
    destinations: z.array(ucpAddress).max(MAX_DESTINATIONS).optional(),
    selected_destination_id: id.nullish(),
    groups: z.array(groupIn).max(MAX_ITEMS).optional(),
  })
  .loose();
export type UcpMethodIn = z.infer<typeof methodIn>;

const fulfillmentIn = z.object({ methods: z.array(methodIn).max(5).optional() }).loose();
const discountsIn = z.object({ codes: z.array(text(64)).max(MAX_CODES).optional() }).loose();
const paymentIn = z.object({ selected_instrument_id: id.nullish() }).loose();

/** POST checkout-sessions. `id`, prices and titles a platform sends are not ours to take: the catalogue's are used. */
export const createCheckoutBody = z
  .object({
    line_items: z.array(lineItemIn).min(1, 'must list at least 1 item').max(MAX_ITEMS, `must list at most ${MAX_ITEMS} items`),
    currency: text(3).optional(),
    buyer: ucpBuyer.optional(),
    fulfillment: fulfillmentIn.optional(),
    discounts: discountsIn.optional(),
    payment: paymentIn.optional(),
  })
  .loose();
export type CreateCheckoutBody = z.infer<typeof createCheckoutBody>;

/** PUT checkout-sessions/{id}: what is sent replaces what was; buyer, fulfillment and discounts left out are kept. */
export const updateCheckoutBody = createCheckoutBody;
export type UpdateCheckoutBody = CreateCheckoutBody;

/** A payment instrument as a platform hands it over on complete (2026-01-11: `payment_data`). */
export const paymentInstrument = z
  .object({
    id: id.optional(),
    handler_id: id,
    type: text(32).optional(),
    brand: text(32).optional(),
    last_digits: text(4).optional(),
    credential: z
      .object({ type: text(32), token: text(4096).optional() })
      .loose()
      .optional(),
  })
  .loose();
export type PaymentInstrument = z.infer<typeof paymentInstrument>;

export const completeCheckoutBody = z.object({ payment_data: paymentInstrument, risk_signals: z.unknown().optional() }).loose();
export type CompleteCheckoutBody = z.infer<typeof completeCheckoutBody>;

/** A total as UCP writes it: minor units (paise), never negative (a discount is a positive amount of type discount). */
export interface UcpTotal {
  type: 'items_discount' | 'subtotal' | 'discount' | 'fulfillment' | 'tax' | 'fee' | 'total';
  display_text?: string;
  amount: number;
}

/** UCP's message: what a platform shows its buyer or acts on. 2026-01-11 severities only. */
export interface UcpMessage {
  type: 'error' | 'warning' | 'info';
  code?: string;
  path?: string;
  content: string;
  severity?: 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review';
}

/** A line a fulfilment event or adjustment names (UCP order: `{ id, quantity }`). */
const orderLineRef = z.object({ id, quantity: z.number().int().min(1).max(1_000_000) }).loose();
const moment = z
  .string()
  .max(40)
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be a date-time (RFC 3339)');

/** A fulfilment event of the UCP order (2026-01-11): `type` is open (shipped, in_transit, delivered…). */
export const fulfillmentEventIn = z
  .object({
    id,
    occurred_at: moment,
    type: text(64).min(1, 'must not be empty'),
    line_items: z.array(orderLineRef).max(MAX_ITEMS),
    tracking_number: text(128).optional(),
    tracking_url: z.url().max(2048).optional(),
    carrier: text(128).optional(),
    description: text(500).optional(),
  })
  .loose();

/** An adjustment of the UCP order (2026-01-11): a refund, return, credit…; `status` is pending, completed or failed. */
export const adjustmentIn = z
  .object({
    id,
    type: text(64).min(1, 'must not be empty'),
    occurred_at: moment,
    status: z.enum(['pending', 'completed', 'failed']),
    line_items: z.array(orderLineRef).max(MAX_ITEMS).optional(),
    amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    description: text(500).optional(),
  })
  .loose();

/** PUT …/orders/{id} (the conformance harness): the order as the platform sends it back, with its events and adjustments. */
export const orderUpdateBody = z
  .object({
    fulfillment: z
      .object({ events: z.array(fulfillmentEventIn).max(100).optional() })
      .loose()
      .optional(),
    adjustments: z.array(adjustmentIn).max(100).optional(),
  })
  .loose();
