import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/index.js';
import type { CheckoutStatus } from '../../src/db/schema/index.js';
import { newId } from '../../src/lib/ids.js';
import { Decimal, money, qty } from '../../src/lib/money.js';
import { createOrderWriter } from '../../src/orders/order-writer.js';
import { reservationLines } from '../../src/orders/reservations.js';
import { uid } from './orders.js';

/** A checkout session row as the checkout service would write it (no public endpoint yet); expired when expiresInMs <= 0. */
export async function addCheckout(db: Db, companyId: string, opts: { expiresInMs?: number; status?: CheckoutStatus } = {}): Promise<string> {
  const id = newId('chk');
  await db.query(sql`
    INSERT INTO checkout_sessions (company_id, id, status, ucp_version, expires_at)
    VALUES (${companyId}, ${id}, ${opts.status ?? 'incomplete'}, '2026-01-11', now() + ${opts.expiresInMs ?? 30 * 60_000} * interval '1 millisecond')`);
  return id;
}

export async function checkoutRow(db: Db, companyId: string, id: string) {
  const [row] = await db.query<{ status: CheckoutStatus; order_id: string | null }>(
    sql`SELECT status, order_id FROM checkout_sessions WHERE company_id = ${companyId} AND id = ${id}`,
  );
  return row;
}

/** Every reservation naming the checkout, in id order. */
export async function reservationsOf(db: Db, companyId: string, checkoutId: string) {
  return db.query<{ id: string; variant_id: string; quantity: string; status: string; order_id: string | null }>(sql`
    SELECT id, variant_id, quantity, status, order_id FROM stock_reservations
    WHERE company_id = ${companyId} AND checkout_id = ${checkoutId} ORDER BY id`);
}

export async function shipFrom(db: Db, companyId: string): Promise<string> {
  const [row] = await db.query<{ id: string }>(sql`SELECT id FROM stock_locations WHERE company_id = ${companyId} AND ships_orders AND active`);
  return row.id;
}

export interface Item {
  variantId: string;
  sku: string;
  quantity: string;
}

/** The reservation module's request for these items. */
export const requests = (items: Item[]) => items.map((i) => ({ variantId: i.variantId, quantity: new Decimal(i.quantity), productId: i.sku }));

/**
 * Completes the checkout into an order through the order writer, as the checkout service will: the order's lines are
 * `items` at 100.00 each, and `checkout_id` names the checkout whose held stock it takes.
 */
export async function completeCheckout(db: Db, companyId: string, checkoutId: string, items: Item[]) {
  const lines = items.map((i) => ({
    variant_id: i.variantId,
    sku: i.sku,
    name: i.sku,
    quantity: qty(i.quantity),
    unit_price: '100.00',
    line_total: money(new Decimal(i.quantity).times(100)),
    tax_rate: '18',
    discount: '0.00',
    shipping: '0.00',
  }));
  const amount = items.reduce((sum, i) => sum.plus(new Decimal(i.quantity).times(100)), new Decimal(0));
  return createOrderWriter({ db }).place(companyId, {
    // a buyer of its own: an order racing it for stock must not wait on the same customer row
    customer: { id: newId('cus'), name: 'Checkout Buyer', phone_e164: `+91900${String(randomInt(1e7)).padStart(7, '0')}`, email: null, address: null },
    order: {
      id: newId('ord'),
      external_reference: `chk-${uid()}`,
      payment: 'prepaid',
      payment_reference: null,
      notes: null,
      amount: money(amount),
      discount_amount: '0.00',
      shipping_amount: '0.00',
      delivery_address: null,
      location_id: await shipFrom(db, companyId),
    },
    lines,
    reservations: reservationLines(requests(items)),
    booking_job_id: null,
    checkout_id: checkoutId,
  });
}
