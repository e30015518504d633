import type { Db } from '../db/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { notFound, validationError } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { normalizePhone } from '../lib/phone.js';
import { toOrderSummary } from '../contract/order-output.js';
import type { Customer, CustomerLookupQuery, SetConsentBody } from '../contract/customers.js';
import type { EventType } from '../contract/webhooks.js';
import { recordEvent } from '../events/events.queries.js';
import {
  deliveryRecord,
  findCustomerByPhone,
  lockCustomerByPhone,
  upsertCustomer,
  recentOrders,
  type AddressFields,
  type CustomerRow,
} from './customers.queries.js';
import { consentHistory, latestConsents, type ConsentRecord, type ConsentSource } from './consents.queries.js';
import { consentStates, maySend, recordConsentChanges, type ConsentChange, type ConsentStates } from './consents.js';
import { findPrivacySettings } from './privacy-settings.queries.js';

export type { AddressFields, CustomerRow } from './customers.queries.js';

/** One of a customer's recent orders (the shape the order lookup also starts from). */
export type OrderSummary = Customer['recent_orders'][number];

/** The record's address as one line: "12 MG Road, Indiranagar, Bengaluru, Karnataka 560038". */
export function addressLine(c: Pick<CustomerRow, 'address_line1' | 'address_line2' | 'city' | 'state' | 'pincode'>): string | null {
  if (!c.address_line1) return null;
  const tail = [c.state, c.pincode].filter(Boolean).join(' ');
  return [c.address_line1, c.address_line2, c.city, tail].filter((part) => part).join(', ');
}

/** The customer's address on file when it is complete enough to ship to, else null. */
export function addressOnFile(c: CustomerRow): AddressFields | null {
  if (!c.address_line1 || !c.city || !c.state || !c.pincode) return null;
  return { name: c.address_name, line1: c.address_line1, line2: c.address_line2, city: c.city, state: c.state, pincode: c.pincode, phone: c.address_phone };
}

/**
 * Recognises the customer by E.164 phone or creates them, inside the caller's transaction. The record
 * keeps what it knows: name and email on file are never changed; an address is saved only when the
 * record has none. A concurrent first order for the same new phone waits on the unique index, then
 * finds the record.
 */
export async function recogniseCustomer(
  tx: Db,
  companyId: string,
  input: { name: string; phoneE164: string; email: string | null; address: AddressFields | null },
): Promise<CustomerRow> {
  return upsertCustomer(tx, companyId, { id: newId('cus'), ...input });
}

/** The GET /customers shape of a customer, with their latest orders (read with `db`, a transaction or the pool). */
async function customerOut(db: Db, companyId: string, customer: CustomerRow, recent: number): Promise<Customer> {
  const [orders, record, latest, privacy] = await Promise.all([
    recentOrders(db, companyId, customer.id, recent),
    deliveryRecord(db, companyId, customer.id),
    latestConsents(db, companyId, customer.id),
    findPrivacySettings(db, companyId),
  ]);
  const consents = consentStates(latest);
  return {
    customer_id: customer.id,
    name: customer.name,
    phone: customer.phone_e164,
    email: customer.email,
    city: customer.city,
    state: customer.state,
    pincode: customer.pincode,
    shipping_address: addressLine(customer),
    messaging_opted_out: customer.messaging_opted_out,
    recent_orders: orders.map(toOrderSummary),
    delivery_record: record,
    consents,
    may_send: maySend(consents, { erased: customer.erased_at !== null, messagingOptedOut: customer.messaging_opted_out }),
    privacy_notice_url: privacy.notice_url,
  };
}

/** How many recent orders a customer event carries (GET /customers' default). */
const EVENT_RECENT_ORDERS = 5;

/** A customer event's `data`: the customer in the GET /customers shape, as the other customer events carry it. */
export function customerEventData(db: Db, companyId: string, customer: CustomerRow): Promise<Customer> {
  return customerOut(db, companyId, customer, EVENT_RECENT_ORDERS);
}

export function createCustomerService({ db, clock = () => new Date() }: { db: Db; clock?: () => Date }) {
  const byPhone = (phone: string) => {
    const p = normalizePhone(phone);
    if (!p.ok) throw validationError([{ path: 'phone', message: p.message }]);
    return p.e164;
  };
  const unknown = () => notFound('no customer with this phone number in this company');

  /** Records the changes that change something, under the customer's row lock; an event when any did. */
  async function changeConsents(
    companyId: string,
    phone: string,
    changes: ConsentChange[],
    by: { source: ConsentSource; actor: string | null },
    event: Extract<EventType, `customer.${string}`>,
  ): Promise<{ customer: Customer; changed: boolean }> {
    const e164 = byPhone(phone);
    return db.tx(async (tx) => {
      const locked = await lockCustomerByPhone(tx, companyId, e164);
      if (!locked) throw unknown();
      const at = clock();
      const changed = (await recordConsentChanges(tx, companyId, locked.id, changes, { ...by, at })) > 0;
      const customer = changed ? await findCustomerByPhone(tx, companyId, e164) : locked;
      const out = await customerOut(tx, companyId, customer!, EVENT_RECENT_ORDERS);
      if (changed) await recordEvent(tx, companyId, { id: newId('evt'), type: event, subjectId: locked.id, data: out, at });
      return { customer: out, changed };
    });
  }

  return {
    /** GET /customers: the customer with this phone (any format), with their latest orders. */
    async findByPhone(tenant: Tenant, query: CustomerLookupQuery): Promise<Customer> {
      const customer = await findCustomerByPhone(db, tenant.companyId, byPhone(query.phone));
      if (!customer) throw unknown();
      return customerOut(db, tenant.companyId, customer, query.recent_orders);
    },

    /**
     * PUT /customers/messaging-opt-out (and `customer opt-out`): the customer asked to stop (true) or resume (false)
     * messages. Recorded as consent (source `opt_out`): stopping withdraws order updates and marketing on the messaging
     * channel; resuming gives order updates back (marketing needs its own consent). Idempotent: nothing to change
     * records no row and no event; a change records customer.messaging_opt_out_changed in its transaction.
     */
    async setMessagingOptOut(
      companyId: string,
      phone: string,
      optedOut: boolean,
      actor: string | null = null,
    ): Promise<{ customer: Customer; changed: boolean }> {
      const changes: ConsentChange[] = optedOut
        ? [
            { purpose: 'order_updates', channel: 'messaging', state: 'withdrawn' },
            { purpose: 'marketing', channel: 'messaging', state: 'withdrawn' },
          ]
        : [{ purpose: 'order_updates', channel: 'messaging', state: 'given' }];
      return changeConsents(companyId, phone, changes, { source: 'opt_out', actor }, 'customer.messaging_opt_out_changed');
    },

    /**
     * POST /customers/consents, `set_customer_consent` and `consent set`: one purpose and channel given or withdrawn,
     * the same call either way. Unchanged: no row, no event; a change records customer.consent_changed.
     */
    async setConsent(companyId: string, body: SetConsentBody, by: { source: Extract<ConsentSource, 'api' | 'mcp' | 'cli'>; actor: string | null }) {
      const { purpose, channel, state } = body;
      return changeConsents(companyId, body.phone, [{ purpose, channel, state }], by, 'customer.consent_changed');
    },

    /** `consent show`: the customer's current state and every record, newest first. */
    async consents(companyId: string, phone: string): Promise<{ customer_id: string; consents: ConsentStates; history: ConsentRecord[] }> {
      const customer = await findCustomerByPhone(db, companyId, byPhone(phone));
      if (!customer) throw unknown();
      const [latest, history] = await Promise.all([latestConsents(db, companyId, customer.id), consentHistory(db, companyId, customer.id)]);
      return { customer_id: customer.id, consents: consentStates(latest), history };
    },
  };
}

export type CustomerService = ReturnType<typeof createCustomerService>;
