import { CONSENT_PURPOSES, type UcpMessage, type UcpTotal } from '../contract/ucp-checkout.js';
import { UCP_VERSION, type UcpErrorBody, type UcpVersion } from '../contract/ucp-wire.js';
import { ownFulfillmentEventIds, SHIPPED_OR_AFTER, type CheckoutView, type UcpOrderFacts } from './checkout.service.js';
import type { ProfileHandler } from './ucp-profile.js';
import { amountOf } from './totals.js';
import type { UcpBusiness } from './ucp-settings.service.js';

/**
 * A checkout as UCP 2026-01-11 writes it, member by member (nothing of ours leaks by accident). Amounts are the paise
 * checkout/totals.ts turned them into; a discount is a positive amount of type `discount`; no `tax` total is added to
 * the sum, since prices include GST (the GST the total contains is shown as a `tax` line's display, not added).
 */

const CAPABILITIES = ['dev.ucp.shopping.checkout', 'dev.ucp.shopping.fulfillment', 'dev.ucp.shopping.discount', 'dev.ucp.shopping.buyer_consent'];

/** The checkout's totals in paise: subtotal, shipping, each code's discount, total. */
function checkoutTotalsOut({ totals }: CheckoutView): UcpTotal[] {
  const out: UcpTotal[] = [{ type: 'subtotal', display_text: 'Subtotal', amount: totals.subtotal.paise }];
  if (totals.fulfillment) out.push({ type: 'fulfillment', display_text: 'Shipping', amount: totals.fulfillment.paise });
  for (const d of totals.discounts) out.push({ type: 'discount', display_text: d.title, amount: d.amount.paise });
  out.push({ type: 'total', display_text: 'Total', amount: totals.total.paise });
  return out;
}

/**
 * `endpoint`: the business's UCP endpoint (ucp-profile.ts ucpEndpoint), under which its orders are; `continueUrl`: the
 * checkout's pay page (ucp-profile.ts payPageUrl), given as `continue_url` while the buyer must pay there.
 */
export function checkoutOut(
  view: CheckoutView,
  business: UcpBusiness,
  handlers: ProfileHandler[],
  endpoint: string,
  continueUrl: string,
): Record<string, unknown> {
  const { record, totals } = view;
  const totalsOut = checkoutTotalsOut(view);

  const links = [
    ...(business.privacyUrl ? [{ type: 'privacy_policy', url: business.privacyUrl }] : []),
    ...(business.termsUrl ? [{ type: 'terms_of_service', url: business.termsUrl }] : []),
  ];
  const payment = (record.payment ?? {}) as { selected_instrument_id?: string; instruments?: unknown[] };
  const out: Record<string, unknown> = {
    ucp: { version: UCP_VERSION, capabilities: CAPABILITIES.map((name) => ({ name, version: UCP_VERSION })) },
    id: record.id,
    status: view.status,
    currency: record.currency,
    line_items: record.line_items.map((l, i) => ({
      id: l.id,
      item: { id: l.item_id, title: l.title, price: amountOf(l.unit_price).paise },
      quantity: l.quantity,
      totals: [
        { type: 'subtotal', amount: totals.lines[i].subtotal.paise },
        { type: 'total', amount: totals.lines[i].subtotal.paise },
      ],
    })),
    totals: totalsOut,
    links,
    expires_at: record.expires_at.toISOString(),
    payment: {
      handlers,
      ...(payment.selected_instrument_id ? { selected_instrument_id: payment.selected_instrument_id } : {}),
      // the instrument a completed checkout was paid with, its display fields only (never a credential)
      instruments: payment.instruments ?? [],
    },
    fulfillment: {
      methods: view.methods.map((m) => ({
        id: m.id,
        type: m.type,
        line_item_ids: m.line_item_ids,
        ...(m.destinations ? { destinations: m.destinations } : {}),
        ...(m.selected_destination_id ? { selected_destination_id: m.selected_destination_id } : {}),
        groups: m.groups.map((g) => ({
          id: g.id,
          line_item_ids: g.line_item_ids,
          ...(m.options.length
            ? {
                options: m.options.map((o) => ({
                  id: o.id,
                  title: o.title,
                  ...(o.description ? { description: o.description } : {}),
                  totals: [
                    { type: 'subtotal', amount: o.price.paise },
                    { type: 'total', amount: o.price.paise },
                  ],
                })),
              }
            : {}),
          ...(g.selected_option_id ? { selected_option_id: g.selected_option_id } : {}),
        })),
      })),
    },
    discounts: {
      codes: view.discounts.codes,
      applied: totals.discounts.map((d) => ({
        code: d.code,
        title: d.title,
        amount: d.amount.paise,
        allocations: [{ path: "$.totals[?(@.type=='subtotal')]", amount: d.amount.paise }],
      })),
    },
  };
  if (view.status === 'requires_escalation') out.continue_url = continueUrl;
  if (record.buyer) out.buyer = record.buyer;
  if (view.messages.length) out.messages = view.messages satisfies UcpMessage[];
  if (record.order_id) out.order = { id: record.order_id, permalink_url: `${endpoint}/orders/${record.order_id}` };
  return out;
}

/**
 * A completed checkout's order as UCP 2026-01-11 writes it (the `order` capability): its lines, totals and promised
 * fulfilment are what the checkout came to when completed; `status` is the order's own (an order of ours like any
 * other: confirmed, packed, shipped…). Fulfilment events come from its shipment (shipped, then delivered), followed
 * by what a platform recorded through the conformance harness; adjustments likewise.
 */
export function orderOut({ view, order }: UcpOrderFacts, endpoint: string): Record<string, unknown> {
  const { record, totals } = view;
  const shipped = SHIPPED_OR_AFTER.includes(order.status);
  const quantities = new Map(record.line_items.map((l) => [l.id, l.quantity]));
  const allLines = record.line_items.map((l) => ({ id: l.id, quantity: l.quantity }));
  const s = order.shipment;
  const [shippedId, deliveredId] = ownFulfillmentEventIds(order);
  const own = s
    ? [
        {
          id: shippedId,
          occurred_at: s.created_at.toISOString(),
          type: 'shipped',
          line_items: allLines,
          ...(s.awb ? { tracking_number: s.awb } : {}),
          ...(s.tracking_url ? { tracking_url: s.tracking_url } : {}),
          description: s.courier ? `Shipped via ${s.courier}` : 'Shipped',
        },
        ...(deliveredId ? [{ id: deliveredId, occurred_at: (s.delivered_at ?? s.created_at).toISOString(), type: 'delivered', line_items: allLines }] : []),
      ]
    : [];
  const recorded = (record.order_updates ?? { events: [], adjustments: [] }) as { events: unknown[]; adjustments: unknown[] };
  return {
    ucp: { version: UCP_VERSION, capabilities: [{ name: 'dev.ucp.shopping.order', version: UCP_VERSION }] },
    id: order.id,
    checkout_id: record.id,
    permalink_url: `${endpoint}/orders/${order.id}`,
    line_items: record.line_items.map((l, i) => ({
      id: l.id,
      item: { id: l.item_id, title: l.title, price: amountOf(l.unit_price).paise },
      quantity: { total: l.quantity, fulfilled: shipped ? l.quantity : 0 },
      totals: [
        { type: 'subtotal', amount: totals.lines[i].subtotal.paise },
        { type: 'total', amount: totals.lines[i].amount.paise },
      ],
      status: shipped ? 'fulfilled' : 'processing',
    })),
    fulfillment: {
      expectations: view.methods.flatMap((m) => {
        const destination = m.destinations?.find((d) => d.id === m.selected_destination_id);
        if (!destination) return [];
        const { id: _, ...address } = destination;
        return m.groups.map((g) => {
          const option = m.options.find((o) => o.id === g.selected_option_id);
          return {
            id: g.id,
            line_items: g.line_item_ids.filter((id) => quantities.has(id)).map((id) => ({ id, quantity: quantities.get(id)! })),
            method_type: m.type,
            destination: address,
            ...(option ? { description: option.title } : {}),
          };
        });
      }),
      events: [...own, ...recorded.events],
    },
    adjustments: recorded.adjustments,
    totals: checkoutTotalsOut(view),
  };
}

/*
 * The per-version adapters at the output edge. Every answer is made in 2026-01-11 (checkoutOut, orderOut, UCP's error
 * body), the shape checkout.write keeps for a replay; an answer for a platform negotiated at a newer version is
 * rewritten here, member by member, just before it is sent. 2026-01-11 answers pass through untouched.
 */

type Json = Record<string, unknown>;

/** 2026-04-08's `ucp.capabilities` (and services, payment handlers): a registry keyed by name, each an array of entries. */
const registry = (entries: { name: string }[]): Record<string, Json[]> => {
  const out: Record<string, Json[]> = {};
  for (const { name, ...entry } of entries) (out[name] ??= []).push(entry);
  return out;
};

/** 2026-04-08 totals: a discount (`discount`, `items_discount`) is negative; every other amount as it was. */
const signedTotals = (totals: unknown): unknown =>
  Array.isArray(totals)
    ? (totals as Json[]).map((t) =>
        (t.type === 'discount' || t.type === 'items_discount') && typeof t.amount === 'number' && t.amount > 0 ? { ...t, amount: -t.amount } : t,
      )
    : totals;

/** 2026-04-08 dropped `full_name` from the buyer and postal addresses. */
const withoutFullName = (o: unknown): unknown => {
  if (!o || typeof o !== 'object') return o;
  const { full_name: _, ...rest } = o as Json;
  return rest;
};

/**
 * A payment handler of the 2026-01-11 checkout (`payment.handlers[]`) as 2026-04-08's (and 2026-08-25's)
 * `ucp.payment_handlers` entry; a handler of the protocol's version is of the answer's.
 */
const handler20260408 = (version: UcpVersion) => (h: ProfileHandler) => ({
  name: h.name,
  id: h.id,
  version: h.version === UCP_VERSION ? version : h.version,
  spec: h.spec,
  schema: h.config_schema,
  config: h.config,
});

/** The checkout answer in `version`. */
export function checkoutFor(version: UcpVersion, checkout: Json): Json {
  if (version === UCP_VERSION) return checkout;
  if (version === '2026-08-25') return checkout20260825(checkout20260408(version, checkout));
  return checkout20260408(version, checkout);
}

/** The 2026-01-11 checkout in 2026-04-08's shapes (`version` names the version written in `ucp`). */
function checkout20260408(version: UcpVersion, checkout: Json): Json {
  const { ucp, payment, totals, buyer, fulfillment, ...rest } = checkout as Json & {
    ucp: { capabilities: { name: string }[] };
    payment: { handlers: ProfileHandler[]; selected_instrument_id?: string; instruments: Json[] };
    fulfillment?: { methods: Json[] };
  };
  const out: Json = {
    ucp: {
      version,
      status: 'success',
      capabilities: registry(ucp.capabilities.map(({ name }) => ({ name, version }))),
      payment_handlers: registry(payment.handlers.map(handler20260408(version))),
    },
    ...rest,
    totals: signedTotals(totals),
    // 2026-04-08's payment holds the instruments only, the chosen one marked `selected`; the handlers are in `ucp`
    payment: {
      instruments: payment.instruments.map((i) => (payment.selected_instrument_id ? { ...i, selected: i.id === payment.selected_instrument_id } : i)),
    },
  };
  if (buyer) out.buyer = withoutFullName(buyer);
  if (fulfillment)
    out.fulfillment = {
      ...fulfillment,
      methods: fulfillment.methods.map((m) => (Array.isArray(m.destinations) ? { ...m, destinations: m.destinations.map(withoutFullName) } : m)),
    };
  return out;
}

/**
 * 2026-08-25's buyer consent: every purpose the business supports advertised, each `{ granted, source, description }`:
 * what the platform set (`source: "platform"`), else the business's default, not granted.
 */
const consent20260825 = (kept: unknown): Json => {
  const set = (kept && typeof kept === 'object' ? kept : {}) as Record<string, unknown>;
  return Object.fromEntries(
    CONSENT_PURPOSES.map(({ member, purpose, description }) => [
      purpose,
      typeof set[member] === 'boolean' ? { granted: set[member], source: 'platform', description } : { granted: false, source: 'business', description },
    ]),
  );
};

/**
 * The 2026-04-08 checkout in 2026-08-25's shapes: a shipping method's destination carries its `type`
 * (`shipping_address`), an option's `description` is a description object (`{ plain }`), and the buyer
 * advertises the consent purposes the business supports.
 */
function checkout20260825(checkout: Json): Json {
  const { buyer, fulfillment, ...rest } = checkout as Json & {
    buyer?: Json;
    fulfillment?: { methods: (Json & { groups: (Json & { options?: Json[] })[] })[] };
  };
  const out: Json = { ...rest };
  if (fulfillment)
    out.fulfillment = {
      ...fulfillment,
      methods: fulfillment.methods.map(({ destinations, ...m }) => ({
        ...m,
        // a pickup method's destinations are the business's locations in 2026-08-25; we have none to name
        ...(Array.isArray(destinations) && m.type === 'shipping'
          ? { destinations: (destinations as Json[]).map((d) => ({ ...d, type: 'shipping_address' })) }
          : {}),
        groups: m.groups.map((g) =>
          g.options ? { ...g, options: g.options.map((o) => (typeof o.description === 'string' ? { ...o, description: { plain: o.description } } : o)) } : g,
        ),
      })),
    };
  out.buyer = { ...buyer, consent: consent20260825(buyer?.consent) };
  return out;
}

/** The order answer in `version` (`currency`: the checkout's, which 2026-04-08's order requires). */
export function orderFor(version: UcpVersion, order: Json, { currency }: { currency: string }): Json {
  if (version === UCP_VERSION) return order;
  const { ucp, line_items, totals, fulfillment, ...rest } = order as Json & {
    ucp: { capabilities: { name: string }[] };
    line_items: (Json & { quantity: { total: number; fulfilled: number } })[];
    fulfillment: { expectations: Json[]; events: unknown[] };
  };
  return {
    ucp: { version, status: 'success', capabilities: registry(ucp.capabilities.map(({ name }) => ({ name, version }))) },
    ...rest,
    currency,
    // 2026-04-08 tracks what the checkout ordered apart from what is active now (nothing of ours changes it after)
    line_items: line_items.map((l) => ({ ...l, quantity: { original: l.quantity.total, ...l.quantity } })),
    fulfillment: { ...fulfillment, expectations: fulfillment.expectations.map((e) => ({ ...e, destination: withoutFullName(e.destination) })) },
    totals: signedTotals(totals),
  };
}

/**
 * 2026-04-08's protocol errors (a transport answer: `{ code, content }` with its HTTP status): the request itself, its
 * version, its key, the budgets, the service. Any other refusal is a business outcome.
 */
const PROTOCOL_CODES = new Set([
  'invalid_request',
  'validation_failed',
  'idempotency_conflict',
  'version_unsupported',
  'rate_limited',
  'forbidden',
  'unauthorized',
  'payment_unavailable',
  'internal',
]);
/** Business outcomes after which there is nothing to act on: retrying with other inputs cannot help. */
const UNRECOVERABLE = new Set(['not_found', 'checkout_not_modifiable', 'checkout_expired']);

/**
 * A refusal (UCP's 2026-01-11 error body, as ucp-wire's ucpErrorBody makes it) in `version`, with its HTTP status.
 * 2026-04-08: a protocol error keeps its status, its body `{ code, content }`; a business outcome is HTTP 200 with
 * the error response `{ ucp: { version, status: "error" }, messages }` (its severity `unrecoverable` when nothing is
 * left to act on, else `recoverable`).
 */
export function refusalFor(version: UcpVersion, status: number, body: UcpErrorBody): { status: number; body: Json } {
  if (version === UCP_VERSION) return { status, body: body as unknown as Json };
  if (PROTOCOL_CODES.has(body.code) || status >= 500 || status === 429 || status === 413 || status === 415) {
    return { status, body: { code: body.code, content: body.detail } };
  }
  return {
    status: 200,
    body: {
      ucp: { version, status: 'error' },
      messages: body.messages.map(({ severity: _, ...m }) => ({ ...m, severity: UNRECOVERABLE.has(m.code) ? 'unrecoverable' : 'recoverable' })),
    },
  };
}
