import { createHash } from 'node:crypto';
import type { Db } from '../db/index.js';
import type { CheckoutStatus } from '../db/schema/index.js';
import { AppError } from '../contract/errors.js';
import { UcpError, ucpErrorBody } from '../contract/ucp-wire.js';
import type { CompleteCheckoutBody, CreateCheckoutBody, UcpAddress, UcpMessage, UcpMethodIn, UpdateCheckoutBody } from '../contract/ucp-checkout.js';
import type { StoredAddress } from '../db/schema/index.js';
import { newId, randomAlnum } from '../lib/ids.js';
import { Decimal, money, qty } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { resolveDeliveryState } from '../lib/pincode.js';
import type { OrderWriter, PlaceOrderInput } from '../orders/order-writer.js';
import type { PaymentEventOutcome, PaymentService } from '../payments/payments.service.js';
import { PaymentProviderError } from '../payments/types.js';
import { MONEY_EVENTS, type RazorpayEvent } from '../payments/webhook.js';
import type { PaymentBinding } from '../payments/payments.service.js';
import {
  CHECKOUT_CLOSED,
  companyAutoCourierBooking,
  findOrderById,
  findShipFromLocation,
  findVariantsByIdentifiers,
  REFERENCE_TAKEN,
  type OrderConsent,
} from '../orders/orders.queries.js';
import { holdStock, insufficientStock, releaseReservations, replaceHolds, reservationLines } from '../orders/reservations.js';
import {
  addBuyerAddress,
  findBuyerAddresses,
  findCheckout,
  findOrderShipment,
  insertCheckout,
  setOrderUpdates,
  updateCheckout,
  type CheckoutRecord,
  type OrderShipmentFacts,
  type StoredLine,
} from './checkout.queries.js';
import { settlePayment, type Settlement, type ShownInstrument } from './payment-settlement.js';
import type { HandlerDef } from './ucp-profile.js';
import type { AgentProfiles } from './agent-profile.js';
import type { DiscountEvaluation } from './discounts.js';
import type { DiscountCodeService } from './discount-codes.service.js';
import type { ShippingOption } from './shipping-options.js';
import type { ShippingRateService } from './shipping-rates.service.js';
import { idempotent, type Answer } from './idempotency.js';
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
const MISSING_PHONE = "Delivery in India needs the buyer's mobile number: set buyer.phone_number (or the address's phone_number)";

/** The selected shipping destination of the checkout's first shipping method, if any. */
function selectedDestination(record: CheckoutRecord): (UcpAddress & { id: string }) | undefined {
  const methods = (record.fulfillment as { methods?: StoredMethod[] } | null)?.methods ?? [];
  for (const m of methods) {
    const d = m.destinations?.find((x) => x.id === m.selected_destination_id);
    if (d) return d;
  }
  return undefined;
}

const nameOf = (p: { full_name?: string; fullName?: string; first_name?: string; last_name?: string } | undefined) =>
  (p?.full_name ?? p?.fullName ?? [p?.first_name, p?.last_name].filter(Boolean).join(' ')).trim();

/** The destination's country: ISO 3166-1 alpha-2, India when not given. */
const countryOf = (d: UcpAddress | undefined) => (d?.address_country ?? 'IN').trim().toUpperCase();

/**
 * Who receives the order: a name and a mobile number, from the buyer, else from the address. Delivery in India needs
 * the number (the courier calls it; ok false without one); a buyer abroad may give none (phoneE164 null).
 */
function recipient(record: CheckoutRecord): { ok: true; name: string; phoneE164: string | null; email: string | null } | { ok: false } {
  const buyer = (record.buyer ?? {}) as {
    email?: string;
    phone_number?: string;
    full_name?: string;
    fullName?: string;
    first_name?: string;
    last_name?: string;
  };
  const destination = selectedDestination(record);
  const raw = buyer.phone_number?.trim() || destination?.phone_number?.trim();
  const phone = raw ? normalizePhone(raw) : undefined;
  if (!phone?.ok && countryOf(destination) === 'IN') return { ok: false };
  const name = nameOf(buyer) || nameOf(destination) || buyer.email?.trim() || 'Customer';
  return { ok: true, name: name.slice(0, 200), phoneE164: phone?.ok ? phone.e164 : null, email: buyer.email?.trim() || null };
}

/** The order's delivery address from the UCP destination: an Indian one with its state resolved from the PIN. */
function orderAddress(d: UcpAddress, phoneE164: string | null): { address: StoredAddress & { country?: string }; india: boolean } {
  const country = countryOf(d);
  const base = {
    name: nameOf(d) || null,
    line1: d.street_address?.trim() ?? '',
    line2: d.extended_address?.trim() || null,
    city: d.address_locality?.trim() ?? '',
    phone: phoneE164,
  };
  if (country !== 'IN') return { address: { ...base, state: d.address_region?.trim() ?? '', pincode: d.postal_code?.trim() ?? '', country }, india: false };
  if (!base.line1 || !base.city)
    throw new UcpError(400, 'invalid_address', 'A delivery address in India needs its street_address and address_locality', '$.fulfillment');
  const state = resolveDeliveryState(d.postal_code ?? '', d.address_region);
  if (!state.ok) throw new UcpError(400, 'invalid_address', state.message, '$.fulfillment');
  return { address: { ...base, state: state.state, pincode: d.postal_code!.trim() }, india: true };
}

/**
 * The buyer's marketing consent (UCP buyer_consent: `buyer.consent.marketing`) as the order records it: true gives,
 * false withdraws, marketing on both channels (UCP names no channel); absent records nothing.
 */
function buyerMarketingConsent(buyer: unknown): OrderConsent[] {
  const marketing = ((buyer ?? {}) as { consent?: { marketing?: unknown } }).consent?.marketing;
  if (typeof marketing !== 'boolean') return [];
  return (['messaging', 'email'] as const).map((channel) => ({
    id: newId('cns'),
    purpose: 'marketing' as const,
    channel,
    state: marketing ? ('given' as const) : ('withdrawn' as const),
    source: 'ucp_checkout' as const,
    actor: null,
  }));
}

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

/** The lines, buyer, fulfilment and codes an order is priced on; place_order() refuses a checkout changed since. */
const checkoutState = (r: CheckoutRecord) => ({ line_items: r.line_items, buyer: r.buyer, fulfillment: r.fulfillment, discount_codes: r.discount_codes });
/** A digest of checkoutState (both read from the row, so the same state gives the same text). */
const stateHash = (r: CheckoutRecord) =>
  createHash('sha256')
    .update(JSON.stringify(checkoutState(r)))
    .digest('hex');

/**
 * A checkout waiting for its payment on Razorpay's page, kept in its `payment` as `awaiting`: the Razorpay order asked
 * for, the amount and the state it was asked for, and what the checkout then came to (its completed view once paid).
 */
interface AwaitedPayment {
  provider: 'razorpay';
  provider_order_id: string;
  amount_paise: number;
  state_hash: string;
  instrument: ShownInstrument;
  view: Omit<CheckoutView, 'record'>;
}
const awaitedPayment = (r: CheckoutRecord) => (r.payment as { awaiting?: AwaitedPayment } | null)?.awaiting;
/** The awaited payment when it is still for this checkout as it is (its state and total unchanged since). */
const awaitedNow = (r: CheckoutRecord, totalPaise: number) => {
  const a = awaitedPayment(r);
  return a && a.amount_paise === totalPaise && a.state_hash === stateHash(r) ? a : undefined;
};

const PAY_ON_RAZORPAY: UcpMessage = {
  type: 'error',
  code: 'requires_escalation',
  path: '$.payment',
  content: "The buyer pays on Razorpay's checkout at continue_url; the checkout completes when the payment is captured",
  severity: 'requires_buyer_review',
};

export function createCheckoutService({
  db,
  shippingRates,
  discountCodes,
  agentProfiles,
  orderWriter,
  paymentHandlers,
  payments,
  codRules,
}: {
  db: Db;
  shippingRates: Pick<ShippingRateService, 'options'>;
  discountCodes: Pick<DiscountCodeService, 'evaluate'>;
  agentProfiles: Pick<AgentProfiles, 'get'>;
  /** the one order path (orders/order-writer.ts): a completed checkout's order is an order like POST /orders' */
  orderWriter: Pick<OrderWriter, 'place' | 'placeIn'>;
  /** the handlers a company advertises (ucp-discovery.service.ts handlers) */
  paymentHandlers: (companyId: string) => Promise<readonly HandlerDef[]>;
  /** the company's Razorpay account: its orders and their bindings, for the hosted checkout */
  payments: Pick<PaymentService, 'provider' | 'bindOrder' | 'account'>;
  /** the company's COD rules (src/cod/cod-rules.service.ts, wired in services.ts): what a COD order with these facts breaks */
  codRules: {
    refusalsFor(companyId: string, order: { pincode: string | null; amount: Decimal; phoneE164: string | null }): Promise<{ rule: string; message: string }[]>;
  };
}) {
  /** The catalogue's lines for the platform's items, in its order; an unknown or unlisted item is refused. */
  async function linesFor(on: Db, companyId: string, items: CreateCheckoutBody['line_items'], kept: StoredLine[]): Promise<StoredLine[]> {
    const variants = await findVariantsByIdentifiers(
      on,
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
  /** Whether two sets of lines hold the same stock: the same variants in the same quantities. */
  function sameHolds(a: StoredLine[], b: StoredLine[]): boolean {
    const key = (lines: StoredLine[]) =>
      holdRequests(lines)
        .map((h) => `${h.variantId}:${h.quantity.toString()}`)
        .sort()
        .join(',');
    return key(a) === key(b);
  }

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
  function stockRefusal(err: unknown, status: 400 | 409 = 400): never {
    const short = err instanceof AppError && err.kind === 'insufficient_stock' ? err : insufficientStock(err);
    if (!short) throw err;
    const first = (short.details as { product_id: string }[] | undefined)?.[0]?.product_id ?? 'an item';
    throw new UcpError(status, 'out_of_stock', `Insufficient stock for item ${first}`, '$.line_items');
  }

  /** The fulfilment the platform sent, merged into what was kept (UCP 2026-01-11; docs/ucp.md). */
  async function methodsFor(
    on: Db,
    companyId: string,
    sent: UcpMethodIn[] | undefined,
    kept: StoredMethod[],
    lines: StoredLine[],
    buyer: unknown,
  ): Promise<StoredMethod[]> {
    const lineIds = lines.map((l) => l.id);
    if (!sent) return kept.map((m) => ({ ...m, line_item_ids: m.line_item_ids.filter((id) => lineIds.includes(id)) }));
    const key = buyerKey(buyer);
    const book = key ? await findBuyerAddresses(on, companyId, key) : [];
    const out: StoredMethod[] = [];
    for (const m of sent) {
      const before = kept.find((k) => k.id === m.id) ?? (m.id === undefined && kept.length === 1 ? kept[0] : undefined);
      let destinations = before?.destinations;
      if (m.destinations?.length) {
        destinations = [];
        for (const d of m.destinations) {
          const known = book.find((b) => sameAddress(b.address, d));
          const id = known?.id ?? d.id ?? `addr_${randomAlnum(12)}`;
          if (key && !known) await addBuyerAddress(on, companyId, key, id, { ...d, id: undefined });
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

  /** What the checkout comes to now; a completed one, what it came to when completed. */
  async function view(companyId: string, record: CheckoutRecord): Promise<CheckoutView> {
    if (record.completed_view) return { ...(record.completed_view as Omit<CheckoutView, 'record'>), record };
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
    if (ready && OPEN.includes(record.status) && !recipient(record).ok)
      messages.push({ type: 'warning', code: 'missing', path: '$.buyer.phone_number', content: MISSING_PHONE });
    const discounts = await discountCodes.evaluate(companyId, record.discount_codes, goods);
    messages.push(...discounts.rejected.map((r) => r.message));
    const totals = computeTotals({ lines: lines.map(totalsLine), shipping, discounts: discounts.applied });
    let status: CheckoutStatus = OPEN.includes(record.status) ? (ready ? 'ready_for_complete' : 'incomplete') : record.status;
    if (status === 'ready_for_complete' && awaitedNow(record, totals.total.paise)) {
      status = 'requires_escalation';
      messages.push(PAY_ON_RAZORPAY);
    }
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

  /**
   * The order completing a checkout, as the one order path (order-writer.ts, place_order()) takes it: the checkout's
   * lines at their prices, its discount and shipping, its held stock handed over, and what the completed checkout keeps.
   * The buyer completing it (complete) and a payment captured for it (paymentEvent) both place this.
   */
  function completionOrder(
    record: CheckoutRecord,
    came: Omit<CheckoutView, 'record'>,
    who: { name: string; phoneE164: string | null; email: string | null },
    delivery: { address: StoredAddress & { country?: string }; india: boolean; booking: boolean },
    settlement: Settlement,
  ): { input: PlaceOrderInput; completed: Omit<CheckoutView, 'record'>; payment: Record<string, unknown> } {
    const t = came.totals;
    const { awaiting: _, ...before } = (record.payment as Record<string, unknown> | null) ?? {};
    const payment = {
      ...before,
      selected_instrument_id: settlement.instrument.id,
      instruments: [settlement.instrument],
      ...(settlement.payment === 'prepaid' && settlement.reference ? { paid_by: settlement.reference } : {}),
    };
    const completed: Omit<CheckoutView, 'record'> = { ...came, status: 'completed', messages: [] };
    const lines = record.line_items;
    const { address, india } = delivery;
    const input: PlaceOrderInput = {
      customer: { id: newId('cus'), name: who.name, phone_e164: who.phoneE164, email: who.email, address: india ? address : null },
      order: {
        id: newId('ord'),
        external_reference: record.id,
        payment: settlement.payment,
        payment_reference: settlement.reference,
        notes: null,
        amount: t.total.decimal,
        discount_amount: t.discount.decimal,
        shipping_amount: t.fulfillment?.decimal ?? '0.00',
        delivery_address: address,
        location_id: record.location_id!,
      },
      lines: lines.map((l, i) => ({
        variant_id: l.variant_id,
        sku: l.sku,
        name: l.title,
        quantity: qty(l.quantity),
        unit_price: l.unit_price,
        line_total: t.lines[i].subtotal.decimal,
        tax_rate: l.gst_rate,
        discount: t.lines[i].discount.decimal,
        shipping: t.lines[i].shipping.decimal,
      })),
      reservations: reservationLines(holdRequests(lines)),
      booking_job_id: delivery.booking ? newId('job') : null,
      consents: buyerMarketingConsent(record.buyer),
      checkout_id: record.id,
      checkout_open: true,
      checkout_state: checkoutState(record),
      checkout_payment: payment,
      checkout_view: completed,
    };
    return { input, completed, payment };
  }

  /**
   * Completing with Razorpay: a Razorpay order for the checkout's total (made once: the same complete again, with the
   * checkout unchanged, answers the same one), bound to the checkout, and the checkout answered requires_escalation
   * with its pay page as continue_url. The checkout stays open, its hold renewed for the buyer to pay; the webhook of
   * the payment completes it (paymentEvent). The Razorpay call is made under the checkout's row lock, so completions
   * racing make one Razorpay order.
   */
  async function awaitPayment(business: UcpBusiness, read: CheckoutRecord, came: CheckoutView, instrument: ShownInstrument): Promise<CheckoutView> {
    const companyId = business.companyId;
    const id = read.id;
    const amountPaise = came.totals.total.paise;
    if (awaitedNow(read, amountPaise)) return view(companyId, read);
    const hash = stateHash(read);
    // before the transaction: the account's secret is read on another connection
    const provider = await payments.provider(companyId);
    const record = await db.tx(async (tx) => {
      const locked = await openForChange(tx, business, id);
      if (stateHash(locked) !== hash)
        throw new UcpError(409, 'checkout_changed', 'Checkout changed while it was being completed: read it again and complete it');
      if (awaitedNow(locked, amountPaise)) return locked;
      const order = await provider
        .createOrder({ amountPaise, currency: 'INR', receipt: id.slice(0, 40), notes: { ucp_checkout_id: id } })
        .catch((err: unknown) => {
          if (!(err instanceof PaymentProviderError)) throw err;
          throw new UcpError(503, 'payment_unavailable', 'Razorpay did not take the payment request; try again, or pay another way');
        });
      await payments.bindOrder(companyId, { providerOrderId: order.id, purpose: 'checkout', subjectId: id, amountPaise }, tx);
      const { record: _, ...kept } = came;
      const awaiting: AwaitedPayment = {
        provider: 'razorpay',
        provider_order_id: order.id,
        amount_paise: amountPaise,
        state_hash: hash,
        instrument,
        view: { ...kept, status: 'completed', messages: [] },
      };
      return updateCheckout(tx, companyId, id, {
        status: 'requires_escalation',
        lines: locked.line_items,
        buyer: locked.buyer,
        fulfillment: locked.fulfillment,
        codes: locked.discount_codes,
        payment: { ...(locked.payment ?? {}), awaiting },
        holdMinutes: business.holdMinutes,
      });
    });
    return view(companyId, record);
  }

  return {
    /**
     * A write once per idempotency key (checkout/idempotency.ts), for every door (REST's Idempotency-Key, the MCP tools'
     * idempotency_key): the answer `operation` gives, kept and replayed. A UCP refusal is an answer too (kept and
     * replayed as UCP's error body); a fault is not (the key is freed). The key used with another request, or while its
     * first request is still being answered: 409 idempotency_conflict.
     */
    async write(request: { companyId: string; scope: string; key: string | undefined; body: unknown }, operation: () => Promise<Answer>): Promise<Answer> {
      const outcome = await idempotent(db, request, async () => {
        try {
          return await operation();
        } catch (err) {
          if (!(err instanceof UcpError)) throw err;
          return { status: err.status, body: JSON.stringify(ucpErrorBody(err.code, err.message, err.path)) };
        }
      });
      if (outcome.kind === 'answered') return outcome.answer;
      throw new UcpError(
        409,
        'idempotency_conflict',
        outcome.reason === 'in_progress'
          ? 'A request with this idempotency key is still being answered'
          : 'This idempotency key was used with a different request',
      );
    },

    /**
     * POST checkout-sessions: the lines priced from the catalogue and their stock held, all or nothing. `agentProfile`:
     * the platform's profile URL from UCP-Agent, read for where it wants order events.
     */
    async create(business: UcpBusiness, body: CreateCheckoutBody, agentProfile: string | undefined): Promise<CheckoutView> {
      const companyId = business.companyId;
      const platformWebhookUrl = agentProfile ? (await agentProfiles.get(agentProfile)).webhookUrl : null;
      const lines = await linesFor(db, companyId, body.line_items, []);
      const locationId = await findShipFromLocation(db, companyId);
      if (!locationId) throw new UcpError(400, 'out_of_stock', 'Insufficient stock: the business has no location shipping orders');
      const id = `chk_${randomAlnum(24)}`;
      const methods = await methodsFor(db, companyId, body.fulfillment?.methods, [], lines, body.buyer);
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
          const lines = await linesFor(tx, companyId, body.line_items, before.line_items);
          const buyer = body.buyer ?? before.buyer;
          const kept = (before.fulfillment as { methods?: StoredMethod[] } | null)?.methods ?? [];
          const methods = await methodsFor(tx, companyId, body.fulfillment?.methods, kept, lines, buyer);
          // the holds already match the lines (a change of buyer, fulfilment or codes): the stock rows are not touched
          if (!sameHolds(before.line_items, lines))
            await replaceHolds(tx, { companyId, locationId: before.location_id!, checkoutId: id, lines: holdRequests(lines) });
          return updateCheckout(tx, companyId, id, {
            status: before.status,
            lines,
            buyer,
            fulfillment: { methods },
            codes: body.discounts?.codes ?? before.discount_codes,
            // a Razorpay order asked for (payment.awaiting) is kept: it is paid for this checkout only as it was asked
            payment: body.payment?.selected_instrument_id
              ? { ...(before.payment ?? {}), selected_instrument_id: body.payment.selected_instrument_id }
              : before.payment,
            holdMinutes: business.holdMinutes,
          });
        })
        .catch(stockRefusal);
      return view(companyId, record);
    },

    /**
     * POST checkout-sessions/{id}/complete: the checkout becomes a confirmed order through the one order path
     * (place_order(), with the checkout's held stock handed over), paid as the instrument says (payment-settlement.ts).
     * Checks in UCP's order: unknown 404; finished or expired 409; not ready 400; no mobile number 400; payment (400,
     * 402); then the order, which refuses a checkout canceled, completed or changed meanwhile (409) and short stock (409). The
     * checkout's id is the order's external_reference, so one checkout never makes two orders.
     */
    async complete(business: UcpBusiness, id: string, body: CompleteCheckoutBody): Promise<CheckoutView> {
      const companyId = business.companyId;
      const record = await findCheckout(db, companyId, id);
      if (!record) throw new UcpError(404, 'not_found', 'Checkout session not found');
      if (!OPEN.includes(record.status)) throw new UcpError(409, 'checkout_not_modifiable', `Checkout is ${record.status} and cannot be completed`);
      if (record.expires_at.getTime() <= Date.now()) throw new UcpError(409, 'checkout_expired', 'Checkout has expired; its stock was released');
      const current = await view(companyId, record);
      // requires_escalation: ready, and waiting for a payment on Razorpay's page (completing again answers it again)
      if (current.status !== 'ready_for_complete' && current.status !== 'requires_escalation')
        throw new UcpError(400, 'missing', MISSING_FULFILLMENT, '$.fulfillment');
      const who = recipient(record);
      if (!who.ok) throw new UcpError(400, 'missing', MISSING_PHONE, '$.buyer.phone_number');
      const destination = selectedDestination(record)!;
      const { address, india } = orderAddress(destination, who.phoneE164);
      const settlement = settlePayment(await paymentHandlers(companyId), body.payment_data, { id, destinationCountry: destination.address_country });
      if ('hosted' in settlement) return awaitPayment(business, record, current, settlement.instrument);

      const { record: _, ...came } = current;
      const booking = india && business.autoCourierBooking;
      const { input, completed, payment } = completionOrder(record, came, who, { address, india, booking }, settlement);
      // COD breaking one of the company's COD rules is refused as UCP refuses COD outside India: the checkout stays open.
      if (settlement.payment === 'cod') {
        const refusals = await codRules.refusalsFor(companyId, { pincode: address.pincode, amount: new Decimal(input.order.amount), phoneE164: who.phoneE164 });
        if (refusals.length > 0)
          throw new UcpError(
            400,
            'invalid_payment',
            `Cash on delivery is not offered for this checkout: ${refusals.map((r) => r.message).join('; ')}`,
            '$.payment_data.handler_id',
          );
      }
      let orderId: string;
      try {
        orderId = (await orderWriter.place(companyId, input)).id;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === REFERENCE_TAKEN || code === CHECKOUT_CLOSED) {
          const now = await findCheckout(db, companyId, id);
          if (now && OPEN.includes(now.status))
            throw new UcpError(409, 'checkout_changed', 'Checkout changed while it was being completed: read it again and complete it');
          throw new UcpError(409, 'checkout_not_modifiable', `Checkout is ${now?.status ?? 'gone'} and cannot be completed`);
        }
        // the hold lapsed and the stock was sold meanwhile: a conflict with the checkout's state, not a bad request
        stockRefusal(err, 409);
      }
      // what place_order() wrote to the checkout, without reading it back
      return { ...completed, record: { ...record, status: 'completed', order_id: orderId, payment, completed_view: completed } };
    },

    /**
     * A verified Razorpay event for a Razorpay order bound to a checkout (registered with the payments service, and
     * run in the event's transaction under its lock): money captured completes the checkout into a confirmed prepaid
     * order through the same order path as complete (completionOrder, placed in this transaction), its
     * payment_reference the Razorpay payment id. Everything is checked under the checkout's row lock before the order
     * is written, so the write cannot be refused: money for a checkout no longer open (canceled or expired, its stock
     * released), changed since the payment was asked, completed by another payment, or captured for another amount
     * is never an order but needs attention (a refund). A failed payment changes nothing: the checkout stays open,
     * ready to pay again.
     */
    async paymentEvent(companyId: string, event: RazorpayEvent, binding: PaymentBinding, tx: Db): Promise<PaymentEventOutcome> {
      if (!MONEY_EVENTS.includes(event.type)) return 'acted';
      const id = binding.subjectId;
      const refund = (why: string) => ({ needsAttention: `Razorpay payment ${event.paymentId ?? '(no id)'} for checkout ${id}: ${why}; refund it` });
      const record = await findCheckout(tx, companyId, id, true);
      if (!record) return refund('no such checkout');
      if (record.status === 'completed') {
        const paidBy = (record.payment as { paid_by?: string } | null)?.paid_by;
        return event.paymentId && paidBy === event.paymentId ? 'acted' : refund(`the checkout was completed already, as order ${record.order_id}`);
      }
      if (!OPEN.includes(record.status)) return refund(`the checkout is ${record.status} and its stock was released`);
      const awaited = awaitedPayment(record);
      if (!awaited || awaited.provider_order_id !== binding.providerOrderId) return refund('the checkout now waits for another Razorpay order');
      if (awaited.state_hash !== stateHash(record)) return refund('the checkout changed after the payment was asked for');
      if (event.amountPaise !== awaited.amount_paise || (event.currency ?? 'INR') !== 'INR')
        return refund(`${event.amountPaise ?? '?'} paise ${event.currency ?? ''} captured for a total of ${awaited.amount_paise} paise`.replace('  ', ' '));
      if (!event.paymentId) return refund('the event names no payment');
      const who = recipient(record);
      const destination = selectedDestination(record);
      if (!who.ok || !destination) return refund('the checkout has no mobile number or destination');
      let delivery: ReturnType<typeof orderAddress>;
      try {
        delivery = orderAddress(destination, who.phoneE164);
      } catch (err) {
        if (err instanceof UcpError) return refund(err.message);
        throw err;
      }
      const booking = delivery.india && (await companyAutoCourierBooking(tx, companyId));
      const settlement: Settlement = { payment: 'prepaid', reference: event.paymentId, instrument: awaited.instrument };
      const { input } = completionOrder(record, awaited.view, who, { ...delivery, booking }, settlement);
      await orderWriter.placeIn(tx, companyId, input);
      return 'acted';
    },

    /**
     * The pay page's facts (GET /ucp/{slug}/pay/{id}): for a checkout waiting for its payment, what Razorpay Checkout
     * is opened with (the public key id, the Razorpay order, its amount); otherwise the checkout's status.
     */
    async payPage(
      business: UcpBusiness,
      id: string,
    ): Promise<{ status: CheckoutStatus; pay?: { keyId: string; providerOrderId: string; amountPaise: number; merchantName: string } }> {
      const record = await findCheckout(db, business.companyId, id);
      if (!record) throw new UcpError(404, 'not_found', 'Checkout session not found');
      const now = await view(business.companyId, record);
      const awaited = awaitedPayment(record);
      const account = now.status === 'requires_escalation' ? await payments.account(business.companyId) : null;
      if (!awaited || !account) return { status: now.status };
      return {
        status: now.status,
        pay: { keyId: account.keyId, providerOrderId: awaited.provider_order_id, amountPaise: awaited.amount_paise, merchantName: business.name },
      };
    },

    /**
     * GET orders/{id}: an order a checkout of this business made (its external_reference is the checkout, which names
     * it back), with what the checkout came to, its shipment and what a platform recorded on it. Any other order of
     * the company is not found: the public surface shows only what a platform's own checkout created, to whoever holds
     * the order's unguessable id. Also what the platform-event worker sends (it knows only the company).
     */
    async order(business: Pick<UcpBusiness, 'companyId'>, orderId: string): Promise<UcpOrderFacts> {
      const order = await findOrderById(db, business.companyId, orderId);
      const record = order?.external_reference ? await findCheckout(db, business.companyId, order.external_reference) : undefined;
      if (!order || !record || record.order_id !== order.id) throw new UcpError(404, 'not_found', 'Order not found');
      const shipment = SHIPPED_OR_AFTER.includes(order.status) ? await findOrderShipment(db, business.companyId, order.id) : undefined;
      return { view: await view(business.companyId, record), order: { id: order.id, status: order.status, shipment } };
    },

    /**
     * PUT orders/{id}, the conformance harness (served only with a simulation secret): the platform's order with its
     * fulfilment events and adjustments; those beyond the order's own are kept on the checkout and shown after them.
     */
    async recordOnOrder(business: UcpBusiness, orderId: string, updates: { events: unknown[]; adjustments: unknown[] }): Promise<UcpOrderFacts> {
      const facts = await this.order(business, orderId);
      const own = new Set(ownFulfillmentEventIds(facts.order));
      const kept = { events: updates.events.filter((e) => !own.has((e as { id?: string }).id ?? '')), adjustments: updates.adjustments };
      await setOrderUpdates(db, business.companyId, facts.view.record.id, kept);
      // what was written, without reading the order again
      return { ...facts, view: { ...facts.view, record: { ...facts.view.record, order_updates: kept } } };
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

/** Order statuses whose goods have left the warehouse: a shipment shows in the UCP order. */
export const SHIPPED_OR_AFTER = ['shipped', 'delivered', 'returned'];

/** An order of a checkout as the UCP order is made from it (ucp-output.ts orderOut). */
export interface UcpOrderFacts {
  view: CheckoutView;
  order: { id: string; status: string; shipment: OrderShipmentFacts | undefined };
}

/** The ids of the fulfilment events the order's own shipment makes (ucp-output.ts): a platform cannot overwrite them. */
export const ownFulfillmentEventIds = (order: UcpOrderFacts['order']): string[] =>
  order.shipment ? [`${order.shipment.id}_shipped`, ...(order.status === 'delivered' ? [`${order.shipment.id}_delivered`] : [])] : [];

const totalsLine = (l: StoredLine) => ({ unitPrice: l.unit_price, quantity: String(l.quantity), gstRate: l.gst_rate });

export type CheckoutService = ReturnType<typeof createCheckoutService>;
