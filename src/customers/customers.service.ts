import type { Db } from '../db/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { notFound, validationError } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { normalizePhone } from '../lib/phone.js';
import { toOrderSummary } from '../contract/order-output.js';
import type { Customer, CustomerLookupQuery } from '../contract/customers.js';
import { findCustomerByPhone, upsertCustomer, recentOrders, type AddressFields, type CustomerRow } from './customers.queries.js';

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

export function createCustomerService({ db }: { db: Db }) {
  return {
    /** GET /customers: the customer with this phone (any format), with their latest orders. */
    async findByPhone(tenant: Tenant, query: CustomerLookupQuery): Promise<Customer> {
      const phone = normalizePhone(query.phone);
      if (!phone.ok) throw validationError([{ path: 'phone', message: phone.message }]);
      const customer = await findCustomerByPhone(db, tenant.companyId, phone.e164);
      if (!customer) throw notFound('no customer with this phone number in this company');
      const orders = await recentOrders(db, tenant.companyId, customer.id, query.recent_orders);
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
      };
    },
  };
}

export type CustomerService = ReturnType<typeof createCustomerService>;
