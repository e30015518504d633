import { z } from 'zod';
import { MAX_ITEMS, MAX_QUANTITY } from './orders.js';
import { nullsAsAbsent } from './validation.js';

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

/**
 * A UCP object read leniently: members we do not know are ignored, and an optional member sent as null is read as not
 * sent (agents on strict function-calling schemas send every member, null when unused; the MCP checkout tools take
 * these schemas), except a member whose null says something (`selected_option_id: null` clears the choice).
 */
function lenient<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$loose> {
  const nullMeans = Object.fromEntries(Object.entries(shape).filter(([, member]) => z.safeParse(member, null).success));
  return nullsAsAbsent(z.object(shape).loose()).extend(nullMeans) as unknown as z.ZodObject<S, z.core.$loose>;
}

/** A postal address as UCP writes it (schema.org PostalAddress names). */
export const ucpAddress = lenient({
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
});
export type UcpAddress = z.infer<typeof ucpAddress>;

const lineItemIn = lenient({
  id: id.optional(),
  item: lenient({ id, title: text(500).optional() }),
  quantity: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`),
});

/** Buyer consent (UCP 2026-01-11): its four purposes by name; others a platform sends are kept as sent. */
const consent = z
  .object({
    analytics: z.boolean().optional(),
    preferences: z.boolean().optional(),
    marketing: z.boolean().optional(),
    sale_of_data: z.boolean().optional(),
  })
  .catchall(z.boolean());

export const ucpBuyer = lenient({
  email: text(254).optional(),
  phone_number: text(20).optional(),
  first_name: text(100).optional(),
  last_name: text(100).optional(),
  full_name: text(200).optional(),
  fullName: text(200).optional(),
  consent: consent.optional(),
});
export type UcpBuyer = z.infer<typeof ucpBuyer>;

const groupIn = lenient({ id: id.optional(), line_item_ids: z.array(id).max(MAX_ITEMS).optional(), selected_option_id: id.nullish() });

const methodIn = lenient({
  id: id.optional(),
  type: z.enum(['shipping', 'pickup']).default('shipping'),
  line_item_ids: z.array(id).max(MAX_ITEMS).optional(),
  destinations: z.array(ucpAddress).max(MAX_DESTINATIONS).optional(),
  selected_destination_id: id.nullish(),
  groups: z.array(groupIn).max(MAX_ITEMS).optional(),
});
export type UcpMethodIn = z.infer<typeof methodIn>;

const fulfillmentIn = lenient({ methods: z.array(methodIn).max(5).optional() });
const discountsIn = lenient({ codes: z.array(text(64)).max(MAX_CODES).optional() });
const paymentIn = lenient({ selected_instrument_id: id.nullish() });

/** POST checkout-sessions. `id`, prices and titles a platform sends are not ours to take: the catalogue's are used. */
export const createCheckoutBody = lenient({
  line_items: z.array(lineItemIn).min(1, 'must list at least 1 item').max(MAX_ITEMS, `must list at most ${MAX_ITEMS} items`),
  currency: text(3).optional(),
  buyer: ucpBuyer.optional(),
  fulfillment: fulfillmentIn.optional(),
  discounts: discountsIn.optional(),
  payment: paymentIn.optional(),
});
export type CreateCheckoutBody = z.infer<typeof createCheckoutBody>;

/** PUT checkout-sessions/{id}: what is sent replaces what was; buyer, fulfillment and discounts left out are kept. */
export const updateCheckoutBody = createCheckoutBody;
export type UpdateCheckoutBody = CreateCheckoutBody;

/** A payment instrument as a platform hands it over on complete (2026-01-11: `payment_data`). */
export const paymentInstrument = lenient({
  id: id.optional(),
  handler_id: id,
  type: text(32).optional(),
  brand: text(32).optional(),
  last_digits: text(4).optional(),
  credential: lenient({ type: text(32), token: text(4096).optional() }).optional(),
});
export type PaymentInstrument = z.infer<typeof paymentInstrument>;

export const completeCheckoutBody = lenient({ payment_data: paymentInstrument, risk_signals: z.unknown().optional() });
export type CompleteCheckoutBody = z.infer<typeof completeCheckoutBody>;

/**
 * POST checkout-sessions/{id}/complete in 2026-04-08: the instruments under `payment` (the one to pay with marked
 * `selected`, or the only one) and `signals` for `risk_signals`. Read into the 2026-01-11 body the service takes by
 * completeBodyFrom20260408.
 */
export const completeCheckoutBody20260408 = lenient({
  payment: lenient({
    instruments: z
      .array(lenient({ ...paymentInstrument.shape, selected: z.boolean().optional() }))
      .min(1, 'must list the instrument to pay with')
      .max(10, 'must list at most 10 instruments'),
  }),
  signals: z.unknown().optional(),
});
export type CompleteCheckoutBody20260408 = z.infer<typeof completeCheckoutBody20260408>;

/** The instrument a 2026-04-08 complete pays with: the one marked selected, else the only one; undefined when unclear. */
export function selectedInstrumentIndex(body: CompleteCheckoutBody20260408): number | undefined {
  const { instruments } = body.payment;
  const selected = instruments.flatMap((i, n) => (i.selected ? [n] : []));
  if (selected.length === 1) return selected[0];
  if (selected.length === 0 && instruments.length === 1) return 0;
  return undefined;
}

/** A 2026-04-08 complete as the 2026-01-11 body, and where its instrument is (for the paths of a refusal). */
export function completeBodyFrom20260408(body: CompleteCheckoutBody20260408, index: number): CompleteCheckoutBody {
  const { selected: _, ...instrument } = body.payment.instruments[index];
  return { payment_data: instrument, ...(body.signals !== undefined ? { risk_signals: body.signals } : {}) };
}

/**
 * 2026-01-11's consent members (booleans) and the buyer_consent purposes 2026-08-25 names for them: 2026-08-25's
 * consent is a map of purposes keyed by reverse-DNS name, each `{ granted, source, description }`; the business
 * advertises every purpose it supports (these four, no segments) and ignores any other.
 */
export const CONSENT_PURPOSES = [
  { member: 'analytics', purpose: 'dev.ucp.consent.analytics', description: 'Consent for analytics and performance tracking.' },
  { member: 'preferences', purpose: 'dev.ucp.consent.preferences', description: 'Consent for storing user preferences.' },
  { member: 'marketing', purpose: 'dev.ucp.consent.marketing', description: 'Consent for marketing communications.' },
  { member: 'sale_of_data', purpose: 'dev.ucp.consent.sale_or_sharing', description: 'Consent for selling or sharing data with third parties.' },
] as const;

const consentPurposeIn = lenient({ granted: z.boolean(), source: z.enum(['business', 'platform']) });

/** A 2026-08-25 line's item: `quantity_unit` asserts the basis its quantity counts in (ours is always `each`). */
const quantityUnitIn = lenient({ unit: text(16), scale: z.number().int().min(0).max(18).optional() });
const lineItemIn20260825 = lineItemIn.extend({ item: lineItemIn.shape.item.extend({ quantity_unit: quantityUnitIn.optional() }) });

/**
 * POST and PUT checkout-sessions in 2026-08-25: 2026-04-08's body (2026-01-11's), but for the buyer's consent (a
 * map of purposes), a line's asserted `quantity_unit`, and a destination's `type` (`shipping_address`). Read into the
 * 2026-01-11 body by checkoutBodyFrom20260825.
 */
export const checkoutBody20260825 = createCheckoutBody.extend({
  line_items: z.array(lineItemIn20260825).min(1, 'must list at least 1 item').max(MAX_ITEMS, `must list at most ${MAX_ITEMS} items`),
  buyer: ucpBuyer.extend({ consent: z.record(z.string().max(MAX_ID), consentPurposeIn).optional() }).optional(),
});
export type CheckoutBody20260825 = z.infer<typeof checkoutBody20260825>;

/** A line whose asserted sale basis is not `each` (UN/CEFACT `C62` at scale 0), the only one this business sells in. */
export function quantityUnitMismatch(body: CheckoutBody20260825): number | undefined {
  const index = body.line_items.findIndex((l) => l.item.quantity_unit && (l.item.quantity_unit.unit !== 'C62' || (l.item.quantity_unit.scale ?? 0) !== 0));
  return index < 0 ? undefined : index;
}

/**
 * A 2026-08-25 create or update as the 2026-01-11 body: a purpose the platform set (`source: "platform"`) is kept as
 * 2026-01-11's boolean; one it echoes as the business's default, and any purpose not advertised (segments included),
 * is not kept; a shipping destination's `type` is dropped (`shipping_address`, written back on the way out), and a
 * pickup method's destinations (the business's locations in 2026-08-25, of which we have none) are not read.
 */
export function checkoutBodyFrom20260825(body: CheckoutBody20260825): CreateCheckoutBody {
  const { buyer, fulfillment, line_items, ...rest } = body;
  const out: CreateCheckoutBody = {
    ...rest,
    line_items: line_items.map(({ item: { quantity_unit: _, ...item }, ...line }) => ({ ...line, item })),
  };
  if (buyer) {
    const { consent, ...who } = buyer;
    const kept = consent
      ? Object.fromEntries(
          CONSENT_PURPOSES.flatMap(({ member, purpose }) => (consent[purpose]?.source === 'platform' ? [[member, consent[purpose].granted]] : [])),
        )
      : undefined;
    out.buyer = { ...who, ...(kept ? { consent: kept } : {}) };
  }
  if (fulfillment)
    out.fulfillment = {
      ...fulfillment,
      ...(fulfillment.methods
        ? {
            methods: fulfillment.methods.map((m) =>
              // a pickup method's destinations are the business's own locations in 2026-08-25, never the platform's
              m.type === 'pickup'
                ? (({ destinations: _, ...rest }) => rest)(m)
                : m.destinations
                  ? { ...m, destinations: m.destinations.map(({ type: _, ...d }: UcpAddress & { type?: unknown }) => d) }
                  : m,
            ),
          }
        : {}),
    };
  return out;
}

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

const total = z.object({ type: z.string(), amount: z.number().int().describe('paise'), display_text: z.string().optional() });
/** What a platform sent, kept as sent (a buyer, a destination with the id we gave it). */
const asSent = z.record(z.string(), z.unknown());

/**
 * A checkout as UCP 2026-01-11 writes it (src/checkout/ucp-output.ts builds it): the answer of the REST binding and
 * the MCP checkout tools alike. Amounts are integers in paise. Each object's required members come before its optional
 * ones, the order the compiled serialiser writes them in (src/contract/serializer.ts).
 */
export const ucpCheckoutSchema = z.object({
  ucp: z.object({ version: z.string(), capabilities: z.array(z.object({ name: z.string(), version: z.string() })) }),
  id: z.string(),
  status: z.string().describe('incomplete, ready_for_complete, completed or canceled'),
  currency: z.string(),
  line_items: z.array(
    z.object({
      id: z.string(),
      item: z.object({ id: z.string(), title: z.string(), price: z.number().int() }),
      quantity: z.number().int(),
      totals: z.array(total),
    }),
  ),
  totals: z.array(total),
  links: z.array(z.object({ type: z.string(), url: z.string() })),
  expires_at: z.string(),
  payment: z.object({
    handlers: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        version: z.string(),
        spec: z.string(),
        config_schema: z.string(),
        instrument_schemas: z.array(z.string()),
        config: asSent,
      }),
    ),
    instruments: z.array(asSent),
    selected_instrument_id: z.string().optional(),
  }),
  fulfillment: z.object({
    methods: z.array(
      z.object({
        id: z.string(),
        type: z.string(),
        line_item_ids: z.array(z.string()),
        groups: z.array(
          z.object({
            id: z.string(),
            line_item_ids: z.array(z.string()),
            options: z.array(z.object({ id: z.string(), title: z.string(), totals: z.array(total), description: z.string().optional() })).optional(),
            selected_option_id: z.string().optional(),
          }),
        ),
        destinations: z.array(asSent).optional(),
        selected_destination_id: z.string().optional(),
      }),
    ),
  }),
  discounts: z.object({
    codes: z.array(z.string()),
    applied: z.array(
      z.object({
        code: z.string(),
        title: z.string(),
        amount: z.number().int(),
        allocations: z.array(z.object({ path: z.string(), amount: z.number().int() })),
      }),
    ),
  }),
  buyer: asSent.optional(),
  messages: z
    .array(z.object({ type: z.string(), content: z.string(), code: z.string().optional(), path: z.string().optional(), severity: z.string().optional() }))
    .optional(),
  order: z.object({ id: z.string(), permalink_url: z.string() }).optional(),
});
