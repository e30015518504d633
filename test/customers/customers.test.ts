import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../src/contract/errors.js';
import type { OrderSummary } from '../../src/contract/orders.js';
import { useTestApp } from '../helpers/app.js';
import { get, orderBody, post, shop } from '../helpers/orders.js';

const ctx = useTestApp();
const products = () => [{ sku: 'TEE', name: 'Cotton Tee', variants: [{ sku: 'TEE-M', selling_price: '10.00', stock: '1000' }] }];
const enc = encodeURIComponent;

describe('GET /customers', () => {
  it('finds the customer by phone in any format, with the address as one line and recent orders newest first', async () => {
    const s = await shop(ctx, products());
    const placed = [];
    for (let i = 1; i <= 3; i++) {
      const res = await post(
        ctx,
        s.headers,
        orderBody({ customer: { name: 'Asha Rao', phone: '9876543210', email: 'asha@example.com' }, items: [{ product_id: 'TEE-M', quantity: i }] }),
      );
      placed.push(res.body.data);
    }
    for (const phone of ['9876543210', '+91 98765 43210', '09876543210', '0091-98765-43210']) {
      const res = await get(ctx, s.headers, `/customers?phone=${enc(phone)}`);
      expect(res.status, phone).toBe(200);
      expect(res.body.data).toEqual({
        customer_id: expect.stringMatching(/^cus_/),
        name: 'Asha Rao',
        phone: '+919876543210',
        email: 'asha@example.com',
        city: 'Bengaluru',
        state: 'Karnataka',
        pincode: '560038',
        shipping_address: '12 MG Road, Indiranagar, Bengaluru, Karnataka 560038',
        messaging_opted_out: false,
        recent_orders: [...placed].reverse().map((o) => ({
          order_id: o.order_id,
          order_number: o.order_number,
          order_status: 'confirmed',
          status_label: 'Order confirmed',
          amount: o.amount,
          currency: 'INR',
          order_date: o.created_at,
          external_reference: o.external_reference,
          cod_confirmation: null,
        })),
        delivery_record: { delivered: 0, returned_to_origin: 0, cancelled: 0 },
        consents: { order_updates: { messaging: 'not_asked', email: 'not_asked' }, marketing: { messaging: 'not_asked', email: 'not_asked' } },
        may_send: { order_updates: { messaging: true, email: true }, marketing: { messaging: false, email: false } },
        privacy_notice_url: null,
      });
    }
  });

  it('a customer without an address has nulls; the opt-out flag is shown', async () => {
    const s = await shop(ctx, products());
    await post(ctx, s.headers, orderBody({ delivery_address: undefined, customer: { name: 'Bare', phone: '9000000002' } }));
    await ctx.db.query(sql`UPDATE customers SET messaging_opted_out = true WHERE company_id = ${s.companyId}`);
    const res = await get(ctx, s.headers, '/customers?phone=9000000002');
    expect(res.body.data).toMatchObject({ email: null, city: null, state: null, pincode: null, shipping_address: null, messaging_opted_out: true });
  });

  it('recent_orders: 1–20, default 5; drafts excluded', async () => {
    const s = await shop(ctx, products());
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) ids.push((await post(ctx, s.headers, orderBody())).body.data.order_id);
    const newest = [...ids].reverse();
    const list = async (q: string) => get(ctx, s.headers, `/customers?phone=9876543210${q}`);
    expect((await list('')).body.data.recent_orders.map((o: OrderSummary) => o.order_id)).toEqual(newest.slice(0, 5));
    expect((await list('&recent_orders=1')).body.data.recent_orders.map((o: OrderSummary) => o.order_id)).toEqual(newest.slice(0, 1));
    expect((await list('&recent_orders=20')).body.data.recent_orders.map((o: OrderSummary) => o.order_id)).toEqual(newest.slice(0, 20));
    // like every integer parameter: empty or blank takes the default; only plain decimal digits count
    expect((await list('&recent_orders=')).body.data.recent_orders).toHaveLength(5);
    expect((await list('&recent_orders=%20')).body.data.recent_orders).toHaveLength(5);
    expect((await list('&recent_orders=%202%20')).body.data.recent_orders).toHaveLength(2);
    for (const bad of ['0', '21', '-1', '2.5', 'abc', '0x10', '0x1', '1e1', '0b1', '%2B2', 'Infinity']) {
      const res = await list(`&recent_orders=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details[0].path).toBe('recent_orders');
    }
    await ctx.db.query(sql`UPDATE orders SET status = 'draft' WHERE company_id = ${s.companyId} AND id = ${newest[0]}`);
    expect((await list('&recent_orders=1')).body.data.recent_orders[0].order_id).toBe(newest[1]);
    expect((await list('&recent_orders=1')).body.data.recent_orders[0]).not.toHaveProperty('items');
  });

  it('phone: 7–20 characters and must be a mobile number (400 on phone); no such customer is 404', async () => {
    const s = await shop(ctx, products());
    for (const phone of ['', '987654', '+91   - 98765 - 43210', 'abcdefghij', '080 2345 6789', '1800 123 4567']) {
      const res = await get(ctx, s.headers, `/customers?phone=${enc(phone)}`);
      expect(res.status, phone).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(
        res.body.error.details.map((d: FieldIssue) => d.path),
        phone,
      ).toEqual(['phone']);
    }
    const missing = await get(ctx, s.headers, '/customers');
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].path).toBe('phone');
    const unknown = await get(ctx, s.headers, '/customers?phone=9123456789');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it("isolation: another company's customer phone is 404", async () => {
    const theirs = await shop(ctx, products());
    await post(ctx, theirs.headers, orderBody({ customer: { name: 'Theirs', phone: '9111111111' } }));
    const mine = await shop(ctx, products());
    expect((await get(ctx, theirs.headers, '/customers?phone=9111111111')).status).toBe(200);
    expect((await get(ctx, mine.headers, '/customers?phone=9111111111')).status).toBe(404);
  });
});
