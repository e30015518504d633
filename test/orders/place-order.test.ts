import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { OrderLine } from '../../src/contract/orders.js';
import { useTestApp } from '../helpers/app.js';
import { count, orderBody, post, shop, stockRow } from '../helpers/orders.js';

const ctx = useTestApp();

const catalogue = () => [
  {
    sku: 'TEE',
    name: 'Cotton Tee',
    tax_rate: '12',
    variants: [
      { sku: 'TEE-M', name: 'M', barcode: '8901234567890', selling_price: '33.33', stock: '100' },
      { sku: 'TEE-L', name: 'L', selling_price: '299.00', stock: '5' },
      { sku: 'TEE-OLD', name: 'Old', selling_price: '1.00', stock: '5', active: false },
    ],
  },
  { sku: 'RICE', name: 'Basmati Rice', unit: 'KG', variants: [{ sku: 'RICE-1', selling_price: '99.99', stock: '50.5' }] },
  { sku: 'DAL', name: 'Toor Dal', unit: 'KG', variants: [{ sku: 'DAL-1', selling_price: '33.33', stock: '100' }] },
  { sku: 'GONE', name: 'Discontinued', active: false, variants: [{ sku: 'GONE-1', selling_price: '10.00', stock: '5' }] },
  { sku: 'NOSTOCK', name: 'Never stocked', variants: [{ sku: 'NOSTOCK-1', selling_price: '10.00', stock: {} }] },
];

describe('POST /orders: creation', () => {
  it('creates a confirmed order: 201 with the full Order shape, prices from the catalogue, stock reserved', async () => {
    const s = await shop(ctx, catalogue());
    const body = orderBody({
      items: [
        { product_id: 'TEE-M', quantity: 3 },
        { product_id: 'TEE-L', quantity: '1' },
      ],
      notes: 'Ring twice',
      payment: 'cod',
      payment_reference: 'UPI-123',
      delivery_address: { name: 'Ravi', line1: ' 12 MG Road ', line2: 'Indiranagar', city: 'Bengaluru', pincode: '560038', phone: '+91 99887 76655' },
    });
    const res = await post(ctx, s.headers, body);
    expect(res.status).toBe(201);
    expect(res.body.duplicate).toBeUndefined();
    expect(res.body.data).toEqual({
      order_id: expect.stringMatching(/^ord_/),
      order_number: expect.stringMatching(/^ORD-\d{6,}$/),
      order_status: 'confirmed',
      amount: '398.99',
      currency: 'INR',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      external_reference: body.external_reference,
      items: [
        { sku: 'TEE-M', name: 'Cotton Tee (M)', quantity: '3.000', unit_price: '33.33', line_total: '99.99' },
        { sku: 'TEE-L', name: 'Cotton Tee (L)', quantity: '1.000', unit_price: '299.00', line_total: '299.00' },
      ],
      payment: 'cod',
      delivery_address: {
        name: 'Ravi',
        line1: '12 MG Road',
        line2: 'Indiranagar',
        city: 'Bengaluru',
        state: 'Karnataka',
        pincode: '560038',
        phone: '+919988776655',
      },
      cod_confirmation: null,
    });
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('3.000');
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-L'])).reserved).toBe('1.000');
    const [stored] = await ctx.db.query<{ notes: string; payment_reference: string; status: string }>(
      sql`SELECT notes, payment_reference, status FROM orders WHERE company_id = ${s.companyId}`,
    );
    expect(stored).toEqual({ notes: 'Ring twice', payment_reference: 'UPI-123', status: 'confirmed' });
  });

  it('rounds each line half-up to 2 decimals and sums the lines', async () => {
    const s = await shop(ctx, catalogue());
    // 0.333 kg × 99.99 = 33.29667 -> 33.30; 0.005 kg × 99.99 = 0.49995 -> 0.50 (half-up, not truncated)
    const res = await post(
      ctx,
      s.headers,
      orderBody({
        items: [
          { product_id: 'RICE-1', quantity: '0.333' },
          { product_id: 'TEE-M', quantity: 3 },
        ],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.items.map((i: OrderLine) => i.line_total)).toEqual(['33.30', '99.99']);
    expect(res.body.data.amount).toBe('133.29');
    const half = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'RICE-1', quantity: '0.005' }] }));
    expect(half.body.data.items[0].line_total).toBe('0.50');
    // 0.015 × 33.33 = 0.49995 -> 0.50; a float would give 0.49994999...
    const third = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'DAL-1', quantity: '0.015' }] }));
    expect(third.body.data.items[0].line_total).toBe('0.50');
  });

  it('merges lines naming the same variant by SKU, barcode and variant_id, summing quantities', async () => {
    const s = await shop(ctx, catalogue());
    const res = await post(
      ctx,
      s.headers,
      orderBody({
        items: [
          { product_id: 'TEE-M', quantity: 1 },
          { product_id: 'RICE-1', quantity: '0.5' },
          { product_id: '8901234567890', quantity: '2' },
          { product_id: s.variantIds['TEE-M'], quantity: 1 },
          { product_id: 'RICE-1', quantity: 0.25 },
        ],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.items).toEqual([
      { sku: 'TEE-M', name: 'Cotton Tee (M)', quantity: '4.000', unit_price: '33.33', line_total: '133.32' },
      { sku: 'RICE-1', name: 'Basmati Rice', quantity: '0.750', unit_price: '99.99', line_total: '74.99' },
    ]);
    expect(res.body.data.amount).toBe('208.31');
    const row = await stockRow(ctx, s.companyId, s.variantIds['TEE-M']);
    expect(row).toMatchObject({ reserved: '4.000', open: '4.000' });
    expect(await stockRow(ctx, s.companyId, s.variantIds['RICE-1'])).toMatchObject({ reserved: '0.750', open: '0.750' });
  });

  it('404 for unknown or not-for-sale items lists the product_ids as sent; nothing is written', async () => {
    const s = await shop(ctx, catalogue());
    const res = await post(
      ctx,
      s.headers,
      orderBody({
        items: [
          { product_id: 'TEE-M', quantity: 1 },
          { product_id: 'NOPE', quantity: 1 },
          { product_id: 'TEE-OLD', quantity: 1 },
          { product_id: 'GONE-1', quantity: 1 },
          { product_id: 'NOPE', quantity: 2 },
        ],
      }),
    );
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error.details).toEqual(['NOPE', 'TEE-OLD', 'GONE-1']);
    expect(await count(ctx, 'orders', s.companyId)).toBe(0);
    expect(await count(ctx, 'customers', s.companyId)).toBe(0);
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('0.000');
  });

  it("another company's SKU is unknown here", async () => {
    await shop(ctx, [{ sku: 'THEIRS', name: 'Theirs', variants: [{ sku: 'THEIRS-1', selling_price: '5.00', stock: '5' }] }]);
    const s = await shop(ctx, catalogue());
    const res = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'THEIRS-1', quantity: 1 }] }));
    expect(res.status).toBe(404);
    expect(res.body.error.details).toEqual(['THEIRS-1']);
  });

  it('409 names every short item with requested and available; nothing is written', async () => {
    const s = await shop(ctx, catalogue());
    await ctx.db.query(sql`UPDATE stock_levels SET reserved = 2 WHERE company_id = ${s.companyId} AND variant_id = ${s.variantIds['TEE-L']}`);
    const res = await post(
      ctx,
      s.headers,
      orderBody({
        items: [
          { product_id: 'TEE-M', quantity: 1 },
          { product_id: 'TEE-L', quantity: 4 },
          { product_id: 'NOSTOCK-1', quantity: '1' },
        ],
      }),
    );
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('insufficient_stock');
    expect(res.body.error.details).toEqual([
      { product_id: 'TEE-L', requested: '4.000', available: '3.000' },
      { product_id: 'NOSTOCK-1', requested: '1.000', available: '0.000' },
    ]);
    expect(await count(ctx, 'orders', s.companyId)).toBe(0);
    expect(await count(ctx, 'customers', s.companyId)).toBe(0);
    expect(await count(ctx, 'stock_reservations', s.companyId)).toBe(0);
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('0.000');
    // Exactly what is available succeeds.
    expect((await post(ctx, s.headers, orderBody({ items: [{ product_id: 'TEE-L', quantity: 3 }] }))).status).toBe(201);
  });

  it('422 when the company has no active ship-from location; nothing is written', async () => {
    const s = await shop(ctx, catalogue(), { whActive: false });
    const res = await post(ctx, s.headers, orderBody());
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('unprocessable');
    expect(await count(ctx, 'orders', s.companyId)).toBe(0);
    expect(await count(ctx, 'customers', s.companyId)).toBe(0);
  });

  it('a repeated external_reference returns the original order with 200 duplicate: true, even with a different body', async () => {
    const s = await shop(ctx, catalogue());
    const first = await post(ctx, s.headers, orderBody({ external_reference: 'WA-1' }));
    expect(first.status).toBe(201);
    const again = await post(
      ctx,
      s.headers,
      orderBody({ external_reference: 'WA-1', items: [{ product_id: 'NOPE', quantity: 9 }], customer: { name: 'Other', phone: '9123456789' } }),
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: first.body.data, duplicate: true });
    expect(await count(ctx, 'orders', s.companyId)).toBe(1);
    expect(await count(ctx, 'customers', s.companyId)).toBe(1);
    // The reference is per company: another company may use it.
    const other = await shop(ctx, catalogue());
    expect((await post(ctx, other.headers, orderBody({ external_reference: 'WA-1' }))).status).toBe(201);
  });
});

describe('POST /orders: phones', () => {
  it('accepts every format of one mobile number and matches them to one customer', async () => {
    const s = await shop(ctx, catalogue());
    const formats = [
      '98765 43210',
      '+91-98765-43210',
      '09876543210',
      '919876543210',
      '0091 98765 43210',
      '+919876543210',
      '+91 (98765) 43210',
      '98765-43210',
      '+91.98765.43210',
    ];
    for (const phone of formats) {
      const res = await post(ctx, s.headers, orderBody({ customer: { name: 'Asha', phone } }));
      expect(res.status, phone).toBe(201);
    }
    const rows = await ctx.db.query<{ phone_e164: string }>(sql`SELECT phone_e164 FROM customers WHERE company_id = ${s.companyId}`);
    expect(rows).toEqual([{ phone_e164: '+919876543210' }]);
  });

  it('accepts a foreign mobile number', async () => {
    const s = await shop(ctx, catalogue());
    expect((await post(ctx, s.headers, orderBody({ customer: { name: 'Sam', phone: '+44 7911 123456' } }))).status).toBe(201);
  });

  it('refuses landlines, toll-free, too short and letters with 400 on customer.phone', async () => {
    const s = await shop(ctx, catalogue());
    for (const phone of ['080 2345 6789', '011 2345 6789', '1800 123 4567', '98765 4321', '98765abcde', 'call me now', '+44 20 7946 0958']) {
      const res = await post(ctx, s.headers, orderBody({ customer: { name: 'X', phone } }));
      expect(res.status, phone).toBe(400);
      expect(res.body.error.details, phone).toEqual([{ path: 'customer.phone', message: expect.any(String) }]);
    }
    expect(await count(ctx, 'customers', s.companyId)).toBe(0);
  });
});

describe('POST /orders: PIN code and state', () => {
  const withAddress = (pincode: string, state?: string) =>
    orderBody({ delivery_address: { line1: '1 Main Road', city: 'Town', pincode, ...(state ? { state } : {}) } });

  it('derives the state of a single-state PIN; the same state in any spelling is accepted', async () => {
    const s = await shop(ctx, catalogue());
    expect((await post(ctx, s.headers, withAddress('560038'))).body.data.delivery_address.state).toBe('Karnataka');
    expect((await post(ctx, s.headers, withAddress('110001', 'NCT of Delhi'))).body.data.delivery_address.state).toBe('Delhi');
  });

  it('a PIN shared by two states needs one of them named', async () => {
    const s = await shop(ctx, catalogue());
    const missing = await post(ctx, s.headers, withAddress('160003'));
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ path: 'delivery_address.state', message: expect.stringContaining('Chandigarh') }]);
    const named = await post(ctx, s.headers, withAddress('160003', 'Punjab'));
    expect(named.status).toBe(201);
    expect(named.body.data.delivery_address.state).toBe('Punjab');
    const wrong = await post(ctx, s.headers, withAddress('160003', 'Kerala'));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details[0].path).toBe('delivery_address.state');
  });

  it('a state contradicting a single-state PIN is 400 on delivery_address.state', async () => {
    const s = await shop(ctx, catalogue());
    const res = await post(ctx, s.headers, withAddress('560038', 'Tamil Nadu'));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'delivery_address.state', message: expect.stringContaining('does not match PIN 560038') }]);
    expect(await count(ctx, 'orders', s.companyId)).toBe(0);
  });

  it('an unknown PIN whose prefix has one state gets that state; otherwise the state must be given', async () => {
    const s = await shop(ctx, catalogue());
    expect((await post(ctx, s.headers, withAddress('560999'))).body.data.delivery_address.state).toBe('Karnataka');
    const unknown = await post(ctx, s.headers, withAddress('100001'));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0].path).toBe('delivery_address.state');
    expect((await post(ctx, s.headers, withAddress('100001', 'delhi'))).body.data.delivery_address.state).toBe('Delhi');
  });
});

describe('POST /orders: customers and courier booking', () => {
  it('recognises the customer on a second order: name, email and address on file are kept', async () => {
    const s = await shop(ctx, catalogue());
    const first = await post(ctx, s.headers, orderBody({ customer: { name: 'Asha Rao', phone: '9876543210', email: 'asha@example.com' } }));
    expect(first.status).toBe(201);
    const second = await post(
      ctx,
      s.headers,
      orderBody({
        customer: { name: 'Asha R', phone: '+91 98765 43210', email: 'other@example.com' },
        delivery_address: { line1: '7 Park Street', city: 'Kolkata', pincode: '700016' },
      }),
    );
    expect(second.status).toBe(201);
    expect(second.body.data.delivery_address).toMatchObject({ line1: '7 Park Street', state: 'West Bengal' });
    const rows = await ctx.db.query(sql`SELECT name, email, address_line1, city, state, pincode FROM customers WHERE company_id = ${s.companyId}`);
    expect(rows).toEqual([
      { name: 'Asha Rao', email: 'asha@example.com', address_line1: '12 MG Road', city: 'Bengaluru', state: 'Karnataka', pincode: '560038' },
    ]);
  });

  it('saves the address to a record that has none, and uses the address on file when the order has none', async () => {
    const s = await shop(ctx, catalogue());
    const bare = await post(ctx, s.headers, orderBody({ delivery_address: undefined }));
    expect(bare.status).toBe(201);
    expect(bare.body.data.delivery_address).toBeNull();
    const withAddr = await post(ctx, s.headers, orderBody());
    expect(withAddr.body.data.delivery_address.line1).toBe('12 MG Road');
    const fromFile = await post(ctx, s.headers, orderBody({ delivery_address: null }));
    expect(fromFile.body.data.delivery_address).toEqual({
      name: null,
      line1: '12 MG Road',
      line2: 'Indiranagar',
      city: 'Bengaluru',
      state: 'Karnataka',
      pincode: '560038',
      phone: null,
    });
    expect(await count(ctx, 'customers', s.companyId)).toBe(1);
  });

  it('writes a book_courier job in the same transaction only when auto-booking is on and the address is usable', async () => {
    const jobs = async (companyId: string) =>
      ctx.db.query<{ kind: string; status: string; order_id: string }>(sql`SELECT kind, status, order_id FROM jobs WHERE company_id = ${companyId}`);

    const off = await shop(ctx, catalogue());
    expect((await post(ctx, off.headers, orderBody())).status).toBe(201);
    expect(await jobs(off.companyId)).toEqual([]);

    const on = await shop(ctx, catalogue(), { company: { auto_courier_booking: true } });
    const noAddress = await post(ctx, on.headers, orderBody({ delivery_address: undefined, customer: { name: 'New', phone: '9000000001' } }));
    expect(noAddress.status).toBe(201);
    expect(await jobs(on.companyId)).toEqual([]);
    const withAddress = await post(ctx, on.headers, orderBody());
    expect(await jobs(on.companyId)).toEqual([{ kind: 'book_courier', status: 'pending', order_id: withAddress.body.data.order_id }]);
    // A refused order leaves no job behind.
    expect((await post(ctx, on.headers, orderBody({ items: [{ product_id: 'TEE-L', quantity: 99 }] }))).status).toBe(409);
    expect(await jobs(on.companyId)).toHaveLength(1);
  });
});
