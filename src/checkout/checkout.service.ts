import type { Db } from '../db/index.js';
import type { CheckoutStatus } from '../db/schema/index.js';
import { AppError } from '../contract/errors.js';
import { UcpError } from '../contract/ucp-wire.js';
import type { CreateCheckoutBody, UcpAddress, UcpMessage, UcpMethodIn, UpdateCheckoutBody } from '../contract/ucp-checkout.js';
import { newId, randomAlnum } from '../lib/ids.js';
import { Decimal, money } from '../lib/money.js';
import { findShipFromLocation, findVariantsByIdentifiers } from '../orders/orders.queries.js';
import { holdStock, insufficientStock, releaseReservations, replaceHolds } from '../orders/reservations.js';
import { addBuyerAddress, findBuyerAddresses, findCheckout, insertCheckout, updateCheckout, type CheckoutRecord, type StoredLine } from './checkout.queries.js';
import type { AgentProfiles } from './agent-profile.js';
import type { DiscountEvaluation } from './discounts.js';
import type { DiscountCodeService } from './discount-codes.service.js';
import type { ShippingOption } from './shipping-options.js';
import type { ShippingRateService } from './shipping-rates.service.js';
import { idempotent, type Answer, type IdempotencyOutcome } from './idempotency.js';
import { computeTotals, type CheckoutTotals } from './totals.js';
import type { UcpBusiness } from './ucp-settings.service.js';

/**
 * A buyer's checkout (UCP 2026-01-11): its lines hold stock from the moment they are added (orders/reservations.ts),
 * for the company's hold time after each change; its money is checkout/totals.ts's; what it is offered comes from the
 * company's shipping rates and discount codes. Every change locks the checkout row first, then the stock rows.
 */

/** A fulfilment method as kept: destinations with ids, the chosen one, groups with their chosen option. */
export interface StoredMethod {
  id: string;
  type: 'shipping' | 'pickup';
  line_item_ids: string[];
  destinations?: (UcpAddress & { id: string })[];
  selected_destination_id: string | null;
  groups: { id: string; line_item_ids: string[]; selected_option_id: string | null }[];
}

/** What a checkout comes to now: the record, its money, what it is offered, what the buyer must still do. */
export interface CheckoutView {
  record: CheckoutRecord;
  status: CheckoutStatus;
  totals: CheckoutTotals;
  discounts: DiscountEvaluation;
  methods: (StoredMethod & { options: ShippingOption[] })[];
  messages: UcpMessage[];
}

const OPEN: readonly CheckoutStatus[] = ['incomplete', 'requires_escalation', 'ready_for_complete'];
const MISSING_FULFILLMENT = 'Fulfillment address and option must be selected before completion.';

/** The buyer's key in the address book: their e-mail, else their phone; null when they gave neither. */
function buyerKey(buyer: unknown): string | null {
  const b = (buyer ?? {}) as { email?: string; phone_number?: string };
  if (b.email?.trim()) return `email:${b.email.trim().toLowerCase()}`;
  if (b.phone_number?.trim()) return `phone:${b.phone_number.replace(/\s+/g, '')}`;
  return null;
}

const ADDRESS_FIELDS = ['street_address', 'extended_address', 'address_locality', 'address_region', 'postal_code', 'address_country'] as const;
const field = (a: Record<string, unknown>, f: string) => (typeof a[f] === 'string' ? a[f] : '').trim().toLowerCase();
const sameAddress = (a: Record<string, unknown>, b: Record<string, unknown>) => ADDRESS_FIELDS.every((f) => field(a, f) === field(b, f));

export function createCheckoutService({
  db,
  shippingRates,
  discountCodes,
  agentProfiles,
}: {
  db: Db;
  shippingRates: Pick<ShippingRateService, 'options'>;
  discountCodes: Pick<DiscountCodeService, 'evaluate'>;
  agentProfiles: Pick<AgentProfiles, 'get'>;
}) {
  /** The catalogue's lines for the platform's items, in its order; an unknown or unlisted item is refused. */
  async function linesFor(companyId: string, items: CreateCheckoutBody['line_items'], kept: StoredLine[]): Promise<StoredLine[]> {
    const variants = await findVariantsByIdentifiers(
      db,
      companyId,
      items.map((i) => i.item.id),
    );
    return items.map((item, i) => {
      const v = variants.find((x) => x.for_sale && (x.sku === item.item.id || x.id === item.item.id || x.barcode === item.item.id));
      if (!v) throw new UcpError(400, 'not_found', `Product ${item.item.id} not found`, `$.line_items[${i}].item.id`);
      const same = kept.find((k) => (item.id ? k.id === item.id : k.item_id === item.item.id));
      return {
        id: same?.id ?? newId('li'),
        item_id: item.item.id,
        variant_id: v.id,
        sku: v.sku,
        title: v.name === v.product_name || !v.name ? v.product_name : `${v.product_name} - ${v.name}`,
        unit_price: v.selling_price,
        gst_rate: v.tax_rate,
        quantity: item.quantity,
      };
    });
  }

  /** One hold per variant (two lines naming one item hold their sum, as an order's merged lines do). */
  function holdRequests(lines: StoredLine[]) {
    const byVariant = new Map<string, { variantId: string; quantity: Decimal; productId: string }>();
    for (const l of lines) {
      const held = byVariant.get(l.variant_id);
      if (held) held.quantity = held.quantity.plus(l.quantity);
      else byVariant.set(l.variant_id, { variantId: l.variant_id, quantity: new Decimal(l.quantity), productId: l.item_id });
    }
    return [...byVariant.values()];
  }

  /** A stock refusal (the reservation module's 409) in UCP's words, naming the item as the platform did. */
  function stockRefusal(err: unknown): never {
    const short = err instanceof AppError && err.kind === 'insufficient_stock' ? err : insufficientStock(err);
    if (!short) throw err;
    const first = (short.details as { product_id: string }[] | undefined)?.[0]?.product_id ?? 'an item';
    throw new UcpError(400, 'out_of_stock', `Insufficient stock for item ${first}`, '$.line_items');
  }

  /** The fulfilment the platform sent, merged into what was kept (UCP 2026-01-11; docs/ucp.md). */
  async function methodsFor(
    companyId: string,
    sent: UcpMethodIn[] | undefined,
    kept: StoredMethod[],
    lines: StoredLine[],
    buyer: unknown,
  ): Promise<StoredMethod[]> {
    const lineIds = lines.map((l) => l.id);
    if (!sent) return kept.map((m) => ({ ...m, line_item_ids: m.line_item_ids.filter((id) => lineIds.includes(id)) }));
    const key = buyerKey(buyer);
    const book = key ? await findBuyerAddresses(db, companyId, key) : [];
    const out: StoredMethod[] = [];
    for (const m of sent) {
      const before = kept.find((k) => k.id === m.id) ?? (m.id === undefined && kept.length === 1 ? kept[0] : undefined);
      let destinations = before?.destinations;
      if (m.destinations?.length) {
        destinations = [];
        for (const d of m.destinations) {
          const known = book.find((b) => sameAddress(b.address, d));
          const id = known?.id ?? d.id ?? `addr_${randomAlnum(12)}`;
          if (key && !known) await addBuyerAddress(db, companyId, key, id, { ...d, id: undefined });
          destinations.push({ ...d, id });
        }
      } else if (!destinations && book.length) {
        destinations = book.map((b) => ({ ...(b.address as UcpAddress), id: b.id }));
      }
      const selected = m.selected_destination_id ?? (m.selected_destination_id === null ? null : (before?.selected_destination_id ?? null));
      const groups = m.groups
        ? m.groups.map((g, i) => ({
            id: g.id ?? before?.groups[i]?.id ?? newId('fg'),
            line_item_ids: g.line_item_ids ?? lineIds,
            selected_option_id: g.selected_option_id ?? null,
          }))
        : (before?.groups ?? []);
      out.push({
        id: m.id ?? before?.id ?? newId('fm'),
        type: m.type,
        line_item_ids: m.line_item_ids ?? lineIds,
        ...(destinations ? { destinations } : {}),
        selected_destination_id: selected && destinations?.some((d) => d.id === selected) ? selected : null,
        groups: groups.length === 0 && selected ? [{ id: newId('fg'), line_item_ids: lineIds, selected_option_id: null }] : groups,
      });
    }
    return out;
  }

  /** What the checkout comes to now. */
  async function view(companyId: string, record: CheckoutRecord): Promise<CheckoutView> {
    const lines = record.line_items;
    const goods = computeTotals({ lines: lines.map(totalsLine), shipping: null, discounts: [] }).subtotal.decimal;
    const messages: UcpMessage[] = [];
    const methods: CheckoutView['methods'] = [];
    let shipping: string | null = null;
    let ready = lines.length > 0;
    for (const m of (record.fulfillment as { methods?: StoredMethod[] } | null)?.methods ?? []) {
      const destination = m.destinations?.find((d) => d.id === m.selected_destination_id);
      const quote = destination
        ? await shippingRates.options(
            companyId,
            { country: destination.address_country, state: destination.address_region, postalCode: destination.postal_code },
            goods,
            lines.map((l) => l.sku),
          )
        : { options: [], problem: null };
      if (quote.problem)
        messages.push({ type: 'error', code: 'invalid_address', path: '$.fulfillment', content: quote.problem, severity: 'requires_buyer_input' });
      const groups = m.groups.map((g) => ({
        ...g,
        selected_option_id: quote.options.some((o) => o.id === g.selected_option_id) ? g.selected_option_id : null,
      }));
      for (const g of groups) {
        const option = quote.options.find((o) => o.id === g.selected_option_id);
        if (option) shipping = money(new Decimal(shipping ?? 0).plus(option.price.decimal));
        else ready = false;
      }
      if (!destination || groups.length === 0) ready = false;
      methods.push({ ...m, groups, options: quote.options });
    }
    if (methods.length === 0) ready = false;
    if (!ready && lines.length) messages.push({ type: 'error', code: 'missing', path: '$.fulfillment', content: MISSING_FULFILLMENT, severity: 'recoverable' });
    const discounts = await discountCodes.evaluate(companyId, record.discount_codes, goods);
    messages.push(...discounts.rejected.map((r) => r.message));
    const totals = computeTotals({ lines: lines.map(totalsLine), shipping, discounts: discounts.applied });
    const status: CheckoutStatus = OPEN.includes(record.status) ? (ready ? 'ready_for_complete' : 'incomplete') : record.status;
    return { record, status, totals, discounts, methods, messages };
  }

  /** The checkout locked for a change: unknown → 404; finished (completed, canceled) or expired → 409. */
  async function openForChange(tx: Db, business: UcpBusiness, id: string): Promise<CheckoutRecord> {
    const record = await findCheckout(tx, business.companyId, id, true);
    if (!record) throw new UcpError(404, 'not_found', 'Checkout session not found');
    if (!OPEN.includes(record.status)) throw new UcpError(409, 'checkout_not_modifiable', `Checkout is ${record.status} and cannot be changed`);
    if (record.expires_at.getTime() <= Date.now()) throw new UcpError(409, 'checkout_expired', 'Checkout has expired; its stock was released');
    return record;
  }

  return {
    /** A write once per Idempotency-Key (checkout/idempotency.ts): the answer `operation` gives, kept and replayed. */
    once(request: { companyId: string; scope: string; key: string | undefined; body: unknown }, operation: () => Promise<Answer>): Promise<IdempotencyOutcome> {
      return idempotent(db, request, operation);
    },

    /**
     * POST checkout-sessions: the lines priced from the catalogue and their stock held, all or nothing. `agentProfile`:
     * the platform's profile URL from UCP-Agent, read for where it wants order events.
     */
    async create(business: UcpBusiness, body: CreateCheckoutBody, agentProfile: string | undefined): Promise<CheckoutView> {
      const companyId = business.companyId;
      const platformWebhookUrl = agentProfile ? (await agentProfiles.get(agentProfile)).webhookUrl : null;
      const lines = await linesFor(companyId, body.line_items, []);
      const locationId = await findShipFromLocation(db, companyId);
      if (!locationId) throw new UcpError(400, 'out_of_stock', 'Insufficient stock: the business has no location shipping orders');
      const id = `chk_${randomAlnum(24)}`;
      const methods = await methodsFor(companyId, body.fulfillment?.methods, [], lines, body.buyer);
      const record = await db
        .tx(async (tx) => {
          const row = await insertCheckout(tx, companyId, {
            id,
            status: 'incomplete',
            ucpVersion: '2026-01-11',
            locationId,
            lines,
            buyer: body.buyer ?? null,
            fulfillment: { methods },
            codes: body.discounts?.codes ?? [],
            payment: body.payment?.selected_instrument_id ? { selected_instrument_id: body.payment.selected_instrument_id } : null,
            platformWebhookUrl,
            holdMinutes: business.holdMinutes,
          });
          await holdStock(tx, { companyId, locationId, checkoutId: id, lines: holdRequests(lines) });
          return row;
        })
        .catch(stockRefusal);
      return view(companyId, record);
    },

    async get(business: UcpBusiness, id: string): Promise<CheckoutView> {
      const record = await findCheckout(db, business.companyId, id);
      if (!record) throw new UcpError(404, 'not_found', 'Checkout session not found');
      return view(business.companyId, record);
    },

    /** PUT checkout-sessions/{id}: lines replace lines (their holds in one step); buyer, fulfillment and codes left out are kept. */
    async update(business: UcpBusiness, id: string, body: UpdateCheckoutBody): Promise<CheckoutView> {
      const companyId = business.companyId;
      const record = await db
        .tx(async (tx) => {
          const before = await openForChange(tx, business, id);
          const lines = await linesFor(companyId, body.line_items, before.line_items);
          const buyer = body.buyer ?? before.buyer;
          const kept = (before.fulfillment as { methods?: StoredMethod[] } | null)?.methods ?? [];
          const methods = await methodsFor(companyId, body.fulfillment?.methods, kept, lines, buyer);
          await replaceHolds(tx, { companyId, locationId: before.location_id!, checkoutId: id, lines: holdRequests(lines) });
          return updateCheckout(tx, companyId, id, {
            status: before.status,
            lines,
            buyer,
            fulfillment: { methods },
            codes: body.discounts?.codes ?? before.discount_codes,
            payment: body.payment?.selected_instrument_id ? { selected_instrument_id: body.payment.selected_instrument_id } : before.payment,
            holdMinutes: business.holdMinutes,
          });
        })
        .catch(stockRefusal);
      return view(companyId, record);
    },

    /** POST checkout-sessions/{id}/cancel: its holds released, the checkout canceled. */
    async cancel(business: UcpBusiness, id: string): Promise<CheckoutView> {
      const companyId = business.companyId;
      const record = await db.tx(async (tx) => {
        const before = await openForChange(tx, business, id).catch((err: unknown) => {
          // an expired checkout may still be canceled by its platform: its holds are released either way
          if (err instanceof UcpError && err.code === 'checkout_expired') return findCheckout(tx, companyId, id, true) as Promise<CheckoutRecord>;
          throw err;
        });
        await releaseReservations(tx, { companyId, checkoutId: id });
        return updateCheckout(tx, companyId, id, {
          status: 'canceled',
          lines: before.line_items,
          buyer: before.buyer,
          fulfillment: before.fulfillment,
          codes: before.discount_codes,
          payment: before.payment,
          holdMinutes: null,
        });
      });
      return view(companyId, record);
    },
  };
}

const totalsLine = (l: StoredLine) => ({ unitPrice: l.unit_price, quantity: String(l.quantity), gstRate: l.gst_rate });

export type CheckoutService = ReturnType<typeof createCheckoutService>;
