import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { ORDER_STATUS_LABELS, SHIPMENT_STATUS_LABELS } from '../../src/contract/status-labels.js';
import { get, orderBody, post, shop } from '../helpers/orders.js';

const ctx = useTestApp();

const products = () => [{ sku: 'TEE', name: 'Cotton Tee', variants: [{ sku: 'TEE-M', name: 'M', selling_price: '299.00', stock: '100' }] }];

async function placed(s: Awaited<ReturnType<typeof shop>>, overrides: Record<string, unknown> = {}) {
  const res = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'TEE-M', quantity: 2 }], ...overrides }));
  expect(res.status).toBe(201);
  return res.body.data;
}

const enc = encodeURIComponent;

describe('GET /orders/{reference}', () => {
  it('finds the order by order number, order_id and external_reference, in the lookup shape', async () => {
    const s = await shop(ctx, products());
    const order = await placed(s, { external_reference: 'WA-LOOKUP-1' });
    const expected = {
      order_id: order.order_id,
      order_number: order.order_number,
      order_status: 'confirmed',
      status_label: 'Order confirmed',
      amount: '598.00',
      currency: 'INR',
      order_date: order.created_at,
      external_reference: 'WA-LOOKUP-1',
      customer: {
        name: 'Asha Rao',
        phone: '+919876543210',
        messaging_opted_out: false,
        may_send: { order_updates: { messaging: true, email: true }, marketing: { messaging: false, email: false } },
      },
      items: [{ sku: 'TEE-M', name: 'Cotton Tee (M)', quantity: '2.000', unit_price: '299.00', line_total: '598.00' }],
      shipment: null,
      invoice: null,
      cod_confirmation: null,
    };
    for (const ref of [order.order_number, order.order_id, 'WA-LOOKUP-1']) {
      const res = await get(ctx, s.headers, `/orders/${enc(ref)}`);
      expect(res.status, ref).toBe(200);
      expect(res.body).toEqual({ data: expected });
    }
  });

  it('with phone: returned only for that customer, in any format; a mismatch is the same 404 as an unknown order', async () => {
    const s = await shop(ctx, products());
    const order = await placed(s, { external_reference: 'REF-PHONE' });
    for (const phone of ['9876543210', '+91-98765-43210', '0091 98765 43210']) {
      expect((await get(ctx, s.headers, `/orders/REF-PHONE?phone=${enc(phone)}`)).status, phone).toBe(200);
    }
    const mismatch = await get(ctx, s.headers, `/orders/REF-PHONE?phone=${enc('9123456789')}`);
    const invalid = await get(ctx, s.headers, `/orders/REF-PHONE?phone=${enc('not a phone')}`);
    const landline = await get(ctx, s.headers, `/orders/REF-PHONE?phone=${enc('080 2345 6789')}`);
    const other = await shop(ctx, products());
    const unknown = await get(ctx, other.headers, '/orders/REF-PHONE');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    for (const res of [mismatch, invalid, landline]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
    expect((await get(ctx, s.headers, `/orders/${order.order_number}?phone=9123456789`)).body).toEqual(
      (await get(ctx, other.headers, `/orders/${order.order_number}`)).body,
    );
  });

  it('never returns a draft', async () => {
    const s = await shop(ctx, products());
    const order = await placed(s, { external_reference: 'WILL-BE-DRAFT' });
    await ctx.db.query(sql`UPDATE orders SET status = 'draft' WHERE company_id = ${s.companyId} AND id = ${order.order_id}`);
    for (const ref of [order.order_number, order.order_id, 'WILL-BE-DRAFT']) {
      expect((await get(ctx, s.headers, `/orders/${enc(ref)}`)).status, ref).toBe(404);
    }
  });

  it("isolation: another company's order by number, id or reference is 404", async () => {
    const mine = await shop(ctx, products());
    const theirs = await shop(ctx, products());
    const order = await placed(theirs, { external_reference: 'THEIR-REF' });
    for (const ref of [order.order_number, order.order_id, 'THEIR-REF']) {
      const res = await get(ctx, mine.headers, `/orders/${enc(ref)}`);
      expect(res.status, ref).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('reference: at most 100 characters (400 above), unknown is 404', async () => {
    const s = await shop(ctx, products());
    await placed(s, { external_reference: 'r'.repeat(100) });
    expect((await get(ctx, s.headers, `/orders/${'r'.repeat(100)}`)).status).toBe(200);
    const long = await get(ctx, s.headers, `/orders/${'r'.repeat(101)}`);
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('validation_failed');
    expect(long.body.error.details[0].path).toBe('reference');
    expect((await get(ctx, s.headers, '/orders/ORD-0')).status).toBe(404);
  });

  it('an external_reference that looks like another order number does not hide that order', async () => {
    const s = await shop(ctx, products());
    const a = await placed(s);
    const b = await placed(s, { external_reference: a.order_number });
    expect((await get(ctx, s.headers, `/orders/${a.order_number}`)).body.data.order_id).toBe(a.order_id);
    expect((await get(ctx, s.headers, `/orders/${b.order_id}`)).body.data.order_id).toBe(b.order_id);
  });

  it('gives a customer-facing status_label for every order status, and labels every shipment status', async () => {
    const s = await shop(ctx, products());
    const order = await placed(s);
    for (const status of ['confirmed', 'packed', 'shipped', 'delivered', 'cancelled', 'returned'] as const) {
      await ctx.db.query(sql`UPDATE orders SET status = ${status} WHERE company_id = ${s.companyId} AND id = ${order.order_id}`);
      const res = await get(ctx, s.headers, `/orders/${order.order_id}`);
      expect(res.body.data.order_status).toBe(status);
      expect(res.body.data.status_label).toBe(ORDER_STATUS_LABELS[status]);
      expect(res.body.data.status_label).not.toBe(status);
    }
    expect(ORDER_STATUS_LABELS.packed).toBe('Packed and ready to ship');
    for (const status of ['pending', 'booked', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered', 'rto', 'cancelled', 'failed'] as const) {
      expect(SHIPMENT_STATUS_LABELS[status], status).toMatch(/^[A-Z][a-z ]+$/);
    }
  });
});
