import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import type { StoredAddress } from '../db/schema/index.js';
import { AppError, notFound } from '../contract/errors.js';
import { toValidationError } from '../contract/validation.js';
import {
  correctionBody,
  customerDataQuery,
  erasureBody,
  type CorrectionResult,
  type CustomerData,
  type CustomerRef,
  type ErasureReport,
} from '../contract/privacy.js';
import { newId } from '../lib/ids.js';
import { customerEventData } from '../customers/customers.service.js';
import { recordEvent } from '../events/events.queries.js';
import { Decimal } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { deliveryAddress } from '../orders/order-input.js';
import { releaseReservations } from '../orders/reservations.js';
import { cancelCheckout } from '../checkout/checkout-expiry.queries.js';
import { lockOrder } from '../fulfilment/fulfilment.queries.js';
import { createLifecycleService, type LifecycleService } from '../fulfilment/lifecycle.service.js';
import { createOrderViews } from '../fulfilment/order-view.js';
import { customerData } from './customer-data-document.js';
import {
  checkoutsOf,
  clearJobErrors,
  clearUcpDeliveryErrors,
  clearWebhookErrors,
  correctCustomerRow,
  creditNotesOf,
  deleteBuyerAddresses,
  deleteDocumentFiles,
  eraseCustomerRow,
  eventsAbout,
  findRightsCustomer,
  freeTextsMentioning,
  idempotentAnswersAbout,
  inactiveCustomers,
  invoicesOf,
  ordersOfCustomer,
  paymentEventsAbout,
  rewriteCheckout,
  rewriteEvent,
  rewriteFreeText,
  rewriteIdempotentAnswer,
  rewriteInvoiceDocument,
  rewriteOrderPersonal,
  rewritePaymentEvent,
  setOrderDeliveryAddress,
  stampErasureNotice,
  withdrawAllConsents,
  type FreeTextPlace,
  type RightsCustomer,
  type RightsOrder,
} from './privacy.queries.js';
import { buyerMatch, ERASED, mentions, needlesOf, scrubJson, scrubJsonText, textScrubber } from './scrub.js';

/** Orders not yet with the customer: an erasure waits for them, or cancels them when asked (shipped ones go on). */
const UNDELIVERED = new Set(['draft', 'confirmed', 'packed', 'shipped']);
/** Orders whose delivery address may still be corrected: not yet handed to a courier. */
const NOT_SHIPPED = new Set(['draft', 'confirmed', 'packed']);
/** CGST Rule 46(f): an invoice to an unregistered recipient of this taxable value or more carries their name and address. */
export const RECIPIENT_DETAILS_FROM = new Decimal(50_000);

const FREE_TEXT: FreeTextPlace[] = ['shipment_events.note', 'courier_holds.reason', 'courier_holds.resolution', 'credit_notes.reason', 'payments.reference'];
/** The members of a UCP buyer or shipping destination that are the person's own (the locality, region and PIN code stay). */
const CHECKOUT_PERSONAL = ['first_name', 'last_name', 'full_name', 'email', 'phone_number', 'street_address', 'extended_address'];
const PURPOSES = ['order_updates', 'marketing'] as const;
const CHANNELS = ['messaging', 'email'] as const;

const unknownCustomer = () => notFound('no customer with this phone number or id in this company');

function parsed<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import('zod').ZodError } }, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw toValidationError(r.error);
  return r.data;
}

async function findCustomer(db: Db, companyId: string, ref: CustomerRef, lock: boolean): Promise<RightsCustomer> {
  let by: { id: string } | { phoneE164: string };
  if (ref.customer_id !== undefined) by = { id: ref.customer_id };
  else {
    const p = normalizePhone(ref.phone ?? '');
    if (!p.ok) throw unknownCustomer();
    by = { phoneE164: p.e164 };
  }
  const customer = await findRightsCustomer(db, companyId, by, lock);
  if (!customer) throw unknownCustomer();
  return customer;
}

const RETAINED_ALWAYS = [
  {
    what: "orders: numbers, dates, lines, amounts, statuses, and the delivery address's city, state and PIN code (name, street lines and phone erased)",
    why: 'Books of account (CGST Act s.35, CGST Rule 56) are kept 72 months from the due date of the annual return; the state is the place of supply. DPDP Act s.8(7)(a) allows keeping what another law requires.',
  },
  {
    what: "invoices and credit notes: number, date, seller, lines, HSN codes, amounts, taxes and place of supply; the buyer reads 'Erased customer'",
    why: 'CGST Act s.35-36 and CGST Rule 56: tax invoices are kept 72 months from the due date of the annual return; the place of supply (state name and code) is always required.',
  },
  {
    what: 'the audit trail of this erasure and of earlier actions on the customer (ids and field names only)',
    why: 'The record that the request was carried out (DPDP Act s.12; audit entries hold no personal data).',
  },
];

/**
 * Erases a customer whose row is locked, inside the caller's transaction: every place that holds its personal data is
 * rewritten or deleted, what tax law requires is kept (RETAINED_ALWAYS, and an invoice of ₹50,000 or more keeps the
 * recipient's name and address as issued). Orders not yet delivered: a 409 unless `lifecycle` is given to cancel the
 * drafts, confirmed and packed ones (shipped ones stay with the courier, whose label already has the address).
 */
async function eraseLocked(
  tx: Db,
  companyId: string,
  customer: RightsCustomer,
  actor: Actor,
  now: Date,
  cancelOpen: LifecycleService | null,
): Promise<ErasureReport> {
  let orders = await ordersOfCustomer(tx, companyId, customer.id, true);
  const open = orders.filter((o) => UNDELIVERED.has(o.status));
  if (open.length > 0 && !cancelOpen)
    throw new AppError(
      'conflict',
      `the customer has ${open.length} order(s) not yet delivered; erase after they are delivered or cancelled, or send cancel_open_orders: true`,
      open.map((o) => ({ path: 'orders', message: `${o.order_number} is ${o.status}` })),
    );
  const cancelled: string[] = [];
  if (cancelOpen) {
    for (const o of open.filter((x) => NOT_SHIPPED.has(x.status))) {
      const locked = await lockOrder(tx, companyId, o.id);
      if (!locked) continue;
      await cancelOpen.applyMove(tx, companyId, locked, 'cancelled', now);
      cancelled.push(o.order_number);
    }
    if (cancelled.length > 0) orders = await ordersOfCustomer(tx, companyId, customer.id, true);
  }
  const orderIds = orders.map((o) => o.id);

  const own = [
    customer.name,
    customer.phone_e164,
    customer.email,
    customer.address_name,
    customer.address_line1,
    customer.address_line2,
    customer.address_phone,
  ];
  const fromOrders = orders.flatMap((o) =>
    o.delivery_address ? [o.delivery_address.name, o.delivery_address.line1, o.delivery_address.line2, o.delivery_address.phone] : [],
  );
  const checkouts = await checkoutsOf(tx, companyId, orderIds, buyerMatch([customer.phone_e164], [customer.email]), true);
  // what the buyer typed into a checkout: an open one's address is on no order, so its lines are needles of their own
  const fromCheckouts = checkouts.flatMap((c) => {
    const methods = ((c.fulfillment ?? {}) as { methods?: { destinations?: Record<string, unknown>[] }[] }).methods ?? [];
    const people = [(c.buyer ?? {}) as Record<string, unknown>, ...methods.flatMap((m) => m.destinations ?? [])];
    return people.flatMap((b) => CHECKOUT_PERSONAL.map((k) => b[k])).filter((v): v is string => typeof v === 'string');
  });
  const needles = needlesOf([...own, ...fromOrders, ...fromCheckouts]);
  // who the customer is where no id leads: their e-mails and phones, also as their checkouts' buyers gave them
  const buyers = checkouts.map((c) => (c.buyer ?? {}) as Record<string, unknown>);
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const identity = buyerMatch([customer.phone_e164, ...buyers.map((b) => str(b.phone_number))], [customer.email, ...buyers.map((b) => str(b.email))]);
  const scrubText = textScrubber(needles);
  const erased: Record<string, number> = {};
  const count = (table: string, n: number) => (erased[table] = (erased[table] ?? 0) + n);

  await eraseCustomerRow(tx, companyId, customer.id, ERASED, now);
  count('customers', 1);
  const consentRows = PURPOSES.flatMap((purpose) => CHANNELS.map((channel) => ({ id: newId('cns'), purpose, channel })));
  await withdrawAllConsents(tx, companyId, customer.id, consentRows, actor.name, now);

  for (const o of orders) {
    await rewriteOrderPersonal(tx, companyId, o.id, {
      delivery_address: o.delivery_address ? erasedAddress(o.delivery_address) : null,
      external_reference: o.external_reference !== null && mentions(o.external_reference, needles) ? `erased-${o.id}` : o.external_reference,
      payment_reference: o.payment_reference === null ? null : scrubText(o.payment_reference),
    });
  }
  count('orders', orders.length);

  for (const c of checkouts) {
    const isOpen = c.status === 'incomplete' || c.status === 'requires_escalation' || c.status === 'ready_for_complete';
    if (isOpen) {
      await releaseReservations(tx, { companyId, checkoutId: c.id });
      await cancelCheckout(tx, companyId, c.id);
    }
    await rewriteCheckout(tx, companyId, {
      id: c.id,
      status: isOpen ? 'canceled' : c.status,
      buyer: scrubJson(c.buyer, needles),
      fulfillment: scrubJson(c.fulfillment, needles),
      payment: scrubJson(c.payment, needles),
      completed_view: scrubJson(c.completed_view, needles),
      order_updates: scrubJson(c.order_updates, needles),
      line_items: scrubJson(c.line_items, needles),
    });
  }
  count('checkout_sessions', checkouts.length);

  const subjects = [customer.id, ...orderIds, ...checkouts.map((c) => c.id)];
  const events = await eventsAbout(tx, companyId, subjects);
  for (const e of events) await rewriteEvent(tx, companyId, e.id, scrubJsonText(e.data, needles));
  count('events', events.length);
  count('webhook_deliveries', await clearWebhookErrors(tx, companyId, subjects));
  count('ucp_order_deliveries', await clearUcpDeliveryErrors(tx, companyId, orderIds));
  count('jobs', await clearJobErrors(tx, companyId, orderIds));
  count('buyer_addresses', await deleteBuyerAddresses(tx, companyId, identity));

  const answers = await idempotentAnswersAbout(
    tx,
    companyId,
    checkouts.map((c) => c.id),
    identity,
  );
  for (const a of answers) await rewriteIdempotentAnswer(tx, companyId, a.scope, a.key, scrubJsonText(a.response, needles));
  count('idempotency_records', answers.length);
  const payments = await paymentEventsAbout(tx, companyId, identity);
  for (const p of payments)
    await rewritePaymentEvent(tx, companyId, p.provider, p.event_id, scrubJson(p.payload, needles), p.note === null ? null : scrubText(p.note));
  count('payment_events', payments.length);

  const retained = [...RETAINED_ALWAYS];
  const invoices = await invoicesOf(tx, companyId, orderIds);
  for (const inv of invoices) {
    if (!inv.document) continue;
    const doc = inv.document as { buyer?: { name: string; phone: string | null; address: string[] }; totals?: { taxable?: string } };
    const keepRecipient = doc.totals?.taxable !== undefined && new Decimal(doc.totals.taxable).gte(RECIPIENT_DETAILS_FROM);
    if (keepRecipient) {
      retained.push({
        what: `invoice ${inv.invoice_number}: the recipient's name and address as issued (the phone is erased)`,
        why: "CGST Rule 46(f): an invoice to an unregistered recipient with a taxable value of ₹50,000 or more must carry the recipient's name and address, and the invoice is kept 72 months (CGST Rule 56).",
      });
      await rewriteInvoiceDocument(tx, companyId, inv.id, { ...doc, buyer: { ...doc.buyer, phone: null } });
    } else {
      const scrubbed = scrubJson({ ...doc, buyer: { name: ERASED, phone: null, address: [] } }, needles);
      await rewriteInvoiceDocument(tx, companyId, inv.id, scrubbed);
    }
  }
  count('invoices', invoices.length);
  const invoiceIds = invoices.map((i) => i.id);
  const notes = await creditNotesOf(tx, companyId, invoiceIds);
  count('document_files', await deleteDocumentFiles(tx, companyId, [...invoiceIds, ...notes.map((n) => n.id)]));
  for (const place of FREE_TEXT) {
    const rows = needles.length ? await freeTextsMentioning(tx, companyId, place, orderIds, invoiceIds, needles) : [];
    for (const r of rows) await rewriteFreeText(tx, companyId, place, r.id, scrubText(r.text));
    count(place.split('.')[0], rows.length);
  }

  await recordAudit(tx, companyId, actor, {
    action: 'customer.erased',
    subjectKind: 'customer',
    subjectId: customer.id,
    detail: { erased, cancelled_orders: cancelled.length, recipient_kept_on_invoices: retained.length - RETAINED_ALWAYS.length },
    at: now,
  });
  return { customer_id: customer.id, erased_at: now.toISOString(), already_erased: false, cancelled_orders: cancelled, erased, retained };
}

/** The order's address once erased: the area stays (city, state for the place of supply, PIN code); who and where exactly goes. */
function erasedAddress(a: StoredAddress): StoredAddress {
  return { name: null, line1: ERASED, line2: null, city: a.city, state: a.state, pincode: a.pincode, phone: null };
}

/**
 * A customer's data rights (DPDP Act ss.11-12): access (everything held about them, one document), correction (name,
 * e-mail, address) and erasure. Each door (REST `/privacy/*` with the key permission `privacy`, the MCP tools, the
 * `customer export|correct|erase` commands) passes its actor, recorded in the audit trail with ids and field names only.
 */
export function createCustomerDataService({ db, config, clock = () => new Date() }: { db: Db; config: Pick<Config, 'INVOICE_DUE_DAYS'>; clock?: () => Date }) {
  const lifecycle = createLifecycleService({ db, config, clock, views: createOrderViews({ db, clock }) });

  return {
    /** Access: one JSON document of everything held about the customer. */
    async access(companyId: string, actor: Actor, input: unknown): Promise<CustomerData> {
      const ref = parsed(customerDataQuery, input);
      return db.tx(async (tx) => {
        const customer = await findCustomer(tx, companyId, ref, false);
        const doc = await customerData(tx, companyId, customer, clock());
        await recordAudit(tx, companyId, actor, {
          action: 'customer.accessed',
          subjectKind: 'customer',
          subjectId: customer.id,
          detail: { orders: doc.orders.length, events: doc.events.length },
          at: clock(),
        });
        return doc;
      });
    },

    /** Correction: the fields given on the record, and the address on the orders not yet shipped. */
    async correct(companyId: string, actor: Actor, input: unknown): Promise<CorrectionResult> {
      const body = parsed(correctionBody, input);
      const address = body.address ? deliveryAddress(body.address) : undefined;
      const now = clock();
      return db.tx(async (tx) => {
        const customer = await findCustomer(tx, companyId, body, true);
        if (customer.erased_at) throw new AppError('conflict', 'the customer was erased; there is nothing to correct');
        const fields = (['name', 'email', 'address'] as const).filter((f) => body[f] !== undefined);
        await correctCustomerRow(
          tx,
          companyId,
          customer.id,
          { name: body.name, email: body.email === undefined ? undefined : body.email || null, address },
          now,
        );
        const orders: RightsOrder[] = await ordersOfCustomer(tx, companyId, customer.id, true);
        const updated: string[] = [];
        const notUpdated: string[] = [];
        for (const o of orders) {
          if (address && NOT_SHIPPED.has(o.status)) {
            await setOrderDeliveryAddress(tx, companyId, o.id, address);
            updated.push(o.order_number);
          } else if (address) notUpdated.push(o.order_number);
        }
        await recordAudit(tx, companyId, actor, {
          action: 'customer.corrected',
          subjectKind: 'customer',
          subjectId: customer.id,
          detail: { fields, orders_updated: updated.length },
          at: now,
        });
        return { customer_id: customer.id, corrected: fields, orders_updated: updated, orders_not_updated: notUpdated };
      });
    },

    /** Erasure, in one transaction (the customer's row locked first, then its orders in id order). Again: the same answer, nothing changed. */
    async erase(companyId: string, actor: Actor, input: unknown): Promise<ErasureReport> {
      const body = parsed(erasureBody, input);
      return db.tx(async (tx) => {
        const customer = await findCustomer(tx, companyId, body, true);
        if (customer.erased_at)
          return {
            customer_id: customer.id,
            erased_at: customer.erased_at.toISOString(),
            already_erased: true,
            cancelled_orders: [],
            erased: {},
            retained: [],
          };
        return eraseLocked(tx, companyId, customer, actor, clock(), body.cancel_open_orders ? lifecycle : null);
      });
    },
  };
}

export type CustomerDataService = ReturnType<typeof createCustomerDataService>;

/** The retention rule's actor in the audit trail. */
export const INACTIVE_CUSTOMERS_ACTOR: Actor = { kind: 'service', name: 'retention.inactive_customers' };

/** DPDP Rules, Rule 8(2): a customer erased for inactivity is told at least this long before. */
export const ERASURE_NOTICE_MS = 48 * 3_600_000;

/**
 * The inactive-customer rule (privacy_settings.inactive_customer_years, off by default), for up to `limit` customers of
 * the company with no order placed and no change to their record in `years` years, and no order still on its way. In
 * two steps (DPDP Rules, Rule 8(2)): one never told since their last activity is told: the event
 * `customer.erasure_scheduled` (the customer in the GET /customers shape and `erasure_due_at`, 48 hours on), with
 * customers.erasure_notice_at stamped and an audit entry in the same transaction, for the seller's flow to message them; one told at
 * least 48 hours ago, and since their last activity, is erased through the same code as an erasure on request. An order,
 * a correction or a consent change after the notice makes them active again (a new notice when they are inactive again
 * for the whole period). Each customer in its own transaction, re-checked under its lock. Returns how many customers it
 * told or erased (the worker runs another batch while that is `limit`).
 */
export async function anonymiseInactiveCustomers(db: Db, companyId: string, years: number, now: Date, limit: number): Promise<number> {
  const before = new Date(now);
  before.setUTCFullYear(before.getUTCFullYear() - years);
  const noticeBefore = new Date(now.getTime() - ERASURE_NOTICE_MS);
  let done = 0;
  for (const id of await inactiveCustomers(db, companyId, before, noticeBefore, limit)) {
    const acted = await db.tx(async (tx) => {
      const customer = await findRightsCustomer(tx, companyId, { id }, true);
      if (!customer || customer.erased_at || customer.updated_at >= before) return false;
      const orders = await ordersOfCustomer(tx, companyId, id, true);
      if (orders.some((o) => UNDELIVERED.has(o.status) || o.created_at >= before)) return false;
      const lastActive = Math.max(customer.updated_at.getTime(), ...orders.map((o) => o.created_at.getTime()));
      const told = customer.erasure_notice_at;
      if (told === null || told.getTime() <= lastActive) {
        const due = new Date(now.getTime() + ERASURE_NOTICE_MS).toISOString();
        await stampErasureNotice(tx, companyId, id, now);
        const data = { ...(await customerEventData(tx, companyId, customer)), erasure_due_at: due };
        await recordEvent(tx, companyId, { id: newId('evt'), type: 'customer.erasure_scheduled', subjectId: id, data, at: now });
        // the trail outlives the event (events_retention_days): the proof the customer was told in time
        await recordAudit(tx, companyId, INACTIVE_CUSTOMERS_ACTOR, {
          action: 'customer.erasure_scheduled',
          subjectKind: 'customer',
          subjectId: id,
          detail: { erasure_due_at: due },
          at: now,
        });
        return true;
      }
      if (told > noticeBefore) return false;
      await eraseLocked(tx, companyId, customer, INACTIVE_CUSTOMERS_ACTOR, now, null);
      return true;
    });
    if (acted) done++;
  }
  return done;
}
