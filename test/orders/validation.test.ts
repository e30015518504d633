import { beforeAll, describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../src/contract/errors.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, count, orderBody, post, shop } from '../helpers/orders.js';

const ctx = useTestApp();
let s: Awaited<ReturnType<typeof shop>>;

beforeAll(async () => {
  s = await shop(ctx, [
    { sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', barcode: '8901234567890', selling_price: '299.00', stock: '1000' }] },
    { sku: 'RICE', name: 'Rice', unit: 'KG', variants: [{ sku: 'RICE-1', selling_price: '99.00', stock: '1000' }] },
  ]);
});

const place = (overrides: Record<string, unknown>) => post(ctx, s.headers, orderBody(overrides));
const paths = (body: { error?: { details?: FieldIssue[] } }): string[] => (body.error?.details ?? []).map((d: { path: string }) => d.path);

async function expectInvalid(overrides: Record<string, unknown>, path: string) {
  const res = await place(overrides);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  expect(paths(res.body)).toContain(path);
  return res.body.error.details.find((d: { path: string }) => d.path === path).message as string;
}

async function expectOk(overrides: Record<string, unknown>) {
  const res = await place(overrides);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

const email254 = `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(63)}.com`;

describe('POST /orders validation, each rule at its edge', () => {
  it('customer.name: 1–120 characters, trimmed; all-whitespace is empty', async () => {
    expect((await expectOk({ customer: { name: 'n'.repeat(120), phone: '9876543210' } })).order_id).toBeTruthy();
    await expectInvalid({ customer: { name: 'n'.repeat(121), phone: '9876543210' } }, 'customer.name');
    await expectInvalid({ customer: { name: '   ', phone: '9876543210' } }, 'customer.name');
    await expectInvalid({ customer: { phone: '9876543210' } }, 'customer.name');
    await expectInvalid({ customer: { name: 42, phone: '9876543210' } }, 'customer.name');
    await expectInvalid({ customer: undefined }, 'customer');
  });

  it('customer.phone: 7–20 characters, then it must be a reachable mobile number', async () => {
    expect(await expectInvalid({ customer: { name: 'A', phone: '987654' } }, 'customer.phone')).toMatch(/at least 7/);
    // 7 characters pass the length rule and reach the number check.
    expect(await expectInvalid({ customer: { name: 'A', phone: '9876543' } }, 'customer.phone')).not.toMatch(/at least 7/);
    await expectOk({ customer: { name: 'A', phone: '+91  - 98765 - 43210' } }); // 20 characters
    expect(await expectInvalid({ customer: { name: 'A', phone: '+91   - 98765 - 43210' } }, 'customer.phone')).toMatch(/at most 20/);
    await expectInvalid({ customer: { name: 'A', phone: 9876543210 } }, 'customer.phone');
  });

  it('customer.email: optional, email format, at most 254 characters', async () => {
    expect(email254).toHaveLength(254);
    await expectOk({ customer: { name: 'A', phone: '9876543211', email: email254 } });
    expect(await expectInvalid({ customer: { name: 'A', phone: '9876543211', email: `a${email254}` } }, 'customer.email')).toMatch(/254/);
    await expectInvalid({ customer: { name: 'A', phone: '9876543211', email: 'not-an-email' } }, 'customer.email');
    await expectInvalid({ customer: { name: 'A', phone: '9876543211', email: 'a@b' } }, 'customer.email');
    await expectOk({ customer: { name: 'A', phone: '9876543211', email: null } });
  });

  it('items: 1–50 lines', async () => {
    await expectInvalid({ items: [] }, 'items');
    await expectInvalid({ items: undefined }, 'items');
    await expectInvalid({ items: 'TEE-M' }, 'items');
    await expectOk({ items: [{ product_id: 'TEE-M', quantity: 1 }] });
    const fifty = await expectOk({ items: Array.from({ length: 50 }, () => ({ product_id: 'TEE-M', quantity: 1 })) });
    expect(fifty.items).toEqual([expect.objectContaining({ sku: 'TEE-M', quantity: '50.000' })]);
    await expectInvalid({ items: Array.from({ length: 51 }, () => ({ product_id: 'TEE-M', quantity: 1 })) }, 'items');
  });

  it('items[].product_id: 1–64 characters', async () => {
    const at64 = await place({ items: [{ product_id: 'x'.repeat(64), quantity: 1 }] });
    expect(at64.status).toBe(404); // valid, just unknown
    await expectInvalid(
      {
        items: [
          { product_id: 'TEE-M', quantity: 1 },
          { product_id: 'x'.repeat(65), quantity: 1 },
        ],
      },
      'items[1].product_id',
    );
    await expectInvalid({ items: [{ product_id: '', quantity: 1 }] }, 'items[0].product_id');
    await expectInvalid({ items: [{ quantity: 1 }] }, 'items[0].product_id');
  });

  it('items[].quantity: number or string, > 0, at most 3 decimals; 2 and "2" are equal', async () => {
    for (const bad of [0, -1, '0', '-1', '0.000', '2.5001', 1.2345, '1e3', 'abc', '', ' ', true, null, [], {}, '+2', '2.', '.5', '0x10']) {
      const message = await expectInvalid({ items: [{ product_id: 'TEE-M', quantity: bad }] }, 'items[0].quantity');
      expect(message).toMatch(/greater than 0|at most 3 decimals/);
    }
    await expectInvalid({ items: [{ product_id: 'TEE-M' }] }, 'items[0].quantity');
    const asNumber = await expectOk({ items: [{ product_id: 'TEE-M', quantity: 2 }] });
    const asString = await expectOk({ items: [{ product_id: 'TEE-M', quantity: '2' }] });
    expect(asNumber.items).toEqual(asString.items);
    expect(asNumber.items[0]).toMatchObject({ quantity: '2.000', line_total: '598.00' });
    // decimals for a product sold by weight; whole numbers for one sold in pieces
    expect((await expectOk({ items: [{ product_id: 'RICE-1', quantity: '2.500' }] })).items[0].quantity).toBe('2.500');
    expect((await expectOk({ items: [{ product_id: 'RICE-1', quantity: 0.001 }] })).items[0].quantity).toBe('0.001');
    expect((await expectOk({ items: [{ product_id: 'TEE-M', quantity: '2.000' }] })).items[0].quantity).toBe('2.000');
    expect(await expectInvalid({ items: [{ product_id: 'TEE-M', quantity: '2.500' }] }, 'items[0].quantity')).toMatch(/whole number of PCS/);
    expect(await expectInvalid({ items: [{ product_id: 'TEE-M', quantity: 1_000_001 }] }, 'items[0].quantity')).toMatch(/at most 1000000/);
  });

  it('lines merged into one (same variant by sku, barcode) are bounded like one line: 400 at the line that crossed it, nothing written', async () => {
    const before = await count(ctx, 'orders', s.companyId);
    // exactly the bound once merged: passes validation (then the stock of 1000 is short)
    const atBound = await place({
      items: [
        { product_id: 'TEE-M', quantity: 600_000 },
        { product_id: '8901234567890', quantity: '400000' },
      ],
    });
    expect(atBound.status, JSON.stringify(atBound.body)).toBe(409);
    const message = await expectInvalid(
      {
        items: [
          { product_id: 'TEE-M', quantity: 600_000 },
          { product_id: '8901234567890', quantity: '400001' },
        ],
      },
      'items[1].quantity',
    );
    expect(message).toMatch(/at most 1000000/);
    const three = await place({
      items: [
        { product_id: 'TEE-M', quantity: 500_000 },
        { product_id: 'TEE-M', quantity: 500_000 },
        { product_id: 'TEE-M', quantity: 1 },
      ],
    });
    expect(three.status).toBe(400);
    expect(three.body.error.details).toEqual([{ path: 'items[2].quantity', message: expect.stringMatching(/1000001\.000.*at most 1000000/) }]);
    expect(await count(ctx, 'orders', s.companyId)).toBe(before);
  });

  it('every optional field sent as null is not given (agents on strict schemas send every property)', async () => {
    const allNull = await expectOk({
      customer: { name: 'A', phone: '9876543212', email: null },
      notes: null,
      delivery_address: null,
      payment: null,
      payment_reference: null,
    });
    expect(allNull).toMatchObject({ payment: 'prepaid', order_status: 'confirmed' });
    const addressNulls = await expectOk({
      payment: null,
      delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560038', name: null, line2: null, state: null, phone: null },
    });
    expect(addressNulls.delivery_address).toEqual({
      name: null,
      line1: '12 MG Road',
      line2: null,
      city: 'Bengaluru',
      state: 'Karnataka',
      pincode: '560038',
      phone: null,
    });
    expect(addressNulls.payment).toBe('prepaid');
    expect((await expectOk({ payment: null, payment_reference: null, notes: null })).payment).toBe('prepaid');
  });

  it.each([
    [{ customer: null }, 'customer'],
    [{ customer: { name: null, phone: '9876543210' } }, 'customer.name'],
    [{ customer: { name: 'A', phone: null } }, 'customer.phone'],
    [{ items: null }, 'items'],
    [{ items: [null] }, 'items[0]'],
    [{ items: [{ product_id: null, quantity: 1 }] }, 'items[0].product_id'],
    [{ items: [{ product_id: 'TEE-M', quantity: null }] }, 'items[0].quantity'],
    [{ external_reference: null }, 'external_reference'],
    [{ delivery_address: { line1: null, city: 'Bengaluru', pincode: '560038' } }, 'delivery_address.line1'],
    [{ delivery_address: { line1: 'x', city: null, pincode: '560038' } }, 'delivery_address.city'],
    [{ delivery_address: { line1: 'x', city: 'Bengaluru', pincode: null } }, 'delivery_address.pincode'],
  ])('a required field sent as null is 400 naming it: %j', async (overrides, path) => {
    const before = await count(ctx, 'orders', s.companyId);
    await expectInvalid(overrides, path);
    expect(await count(ctx, 'orders', s.companyId)).toBe(before);
  });

  it('a JSON number written with an exponent is the same number once parsed (1e2 = 100)', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: { ...s.headers, 'content-type': 'application/json' },
      payload: JSON.stringify(orderBody()).replace('"quantity":1', '"quantity":1e2'),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.items[0].quantity).toBe('100.000');
  });

  it('external_reference 1–100, notes ≤ 500, payment_reference ≤ 100, payment cod|prepaid', async () => {
    await expectOk({ external_reference: `r${'x'.repeat(99)}` });
    await expectInvalid({ external_reference: 'x'.repeat(101) }, 'external_reference');
    await expectInvalid({ external_reference: '' }, 'external_reference');
    await expectInvalid({ external_reference: '   ' }, 'external_reference');
    await expectInvalid({ external_reference: undefined }, 'external_reference');
    await expectOk({ notes: 'n'.repeat(500) });
    await expectInvalid({ notes: 'n'.repeat(501) }, 'notes');
    await expectOk({ payment_reference: 'p'.repeat(100), payment: 'prepaid' });
    await expectInvalid({ payment_reference: 'p'.repeat(101) }, 'payment_reference');
    expect((await expectOk({ payment: 'cod' })).payment).toBe('cod');
    expect((await expectOk({})).payment).toBe('prepaid');
    await expectInvalid({ payment: 'card' }, 'payment');
  });

  it('delivery_address fields at their edges', async () => {
    const addr = (patch: Record<string, unknown>) => ({ delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560038', ...patch } });
    await expectOk(addr({ line1: 'l'.repeat(200), line2: 'm'.repeat(200), city: 'c'.repeat(80), name: 'n'.repeat(160), state: 'Karnataka' }));
    await expectInvalid(addr({ line1: 'l'.repeat(201) }), 'delivery_address.line1');
    await expectInvalid(addr({ line1: '' }), 'delivery_address.line1');
    await expectInvalid(addr({ line2: 'm'.repeat(201) }), 'delivery_address.line2');
    await expectInvalid(addr({ city: 'c'.repeat(81) }), 'delivery_address.city');
    await expectInvalid(addr({ city: undefined }), 'delivery_address.city');
    await expectInvalid(addr({ name: 'n'.repeat(161) }), 'delivery_address.name');
    await expectInvalid(addr({ state: 's'.repeat(81) }), 'delivery_address.state');
    for (const pin of ['56003', '5600381', '56003a', 'abcdef', 560038, '']) await expectInvalid(addr({ pincode: pin }), 'delivery_address.pincode');
    await expectInvalid(addr({ pincode: '060038' }), 'delivery_address.pincode'); // no PIN starts with 0
    await expectInvalid(addr({ phone: 'p'.repeat(21) }), 'delivery_address.phone');
    await expectInvalid(addr({ phone: '080 2345 6789' }), 'delivery_address.phone'); // a landline cannot take courier SMS
    const ok = await expectOk(addr({ phone: '098765 43210' }));
    expect(ok.delivery_address.phone).toBe('+919876543210');
  });

  it('reports every bad field at once', async () => {
    const res = await post(ctx, s.headers, {
      customer: { name: '', phone: 'call me', email: 'nope' },
      items: [
        { product_id: 'TEE-M', quantity: 0 },
        { product_id: '', quantity: '1.2345' },
      ],
      external_reference: 'x'.repeat(101),
      notes: 'n'.repeat(501),
      payment: 'card',
      payment_reference: 'p'.repeat(101),
      delivery_address: { line1: '', city: '', pincode: '12' },
    });
    expect(res.status).toBe(400);
    expect(paths(res.body).sort()).toEqual(
      [
        'customer.name',
        'customer.phone',
        'customer.email',
        'items[0].quantity',
        'items[1].product_id',
        'items[1].quantity',
        'external_reference',
        'notes',
        'payment',
        'payment_reference',
        'delivery_address.line1',
        'delivery_address.city',
        'delivery_address.pincode',
      ].sort(),
    );
    expect(await count(ctx, 'orders', s.companyId)).toBeGreaterThan(0); // earlier tests' orders only
  });

  it('a shared PIN without a state is reported together with other bad fields', async () => {
    const res = await place({ customer: { name: '', phone: '9876543210' }, delivery_address: { line1: '1 Road', city: 'Chandigarh', pincode: '160003' } });
    expect(res.status).toBe(400);
    expect(paths(res.body).sort()).toEqual(['customer.name', 'delivery_address.state']);
  });

  it('unknown fields and price fields are ignored: the catalogue price counts', async () => {
    const data = await expectOk({
      items: [{ product_id: 'TEE-M', quantity: 2, price: '1.00', unit_price: 1, line_total: 2 }],
      amount: '2.00',
      total: 2,
      company_id: 'someone-else',
      whatever: { nested: true },
    });
    expect(data).toMatchObject({ amount: '598.00', items: [{ unit_price: '299.00', line_total: '598.00' }] });
  });

  it('a body that is not a JSON object is 400; over 32 KB is 413; text/plain is 415', async () => {
    for (const payload of ['[]', '"order"', '42', 'null']) {
      const res = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { ...s.headers, 'content-type': 'application/json' }, payload });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
    const big = JSON.stringify(orderBody({ padding: 'x'.repeat(33 * 1024) }));
    const tooBig = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { ...s.headers, 'content-type': 'application/json' }, payload: big });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().error.code).toBe('validation_failed');
    // Just under the limit is fine (unknown fields are ignored).
    const body = orderBody();
    const fits = JSON.stringify({ ...body, padding: 'x'.repeat(32 * 1024 - JSON.stringify(body).length - 20) });
    expect(fits.length).toBeLessThanOrEqual(32 * 1024);
    const ok = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { ...s.headers, 'content-type': 'application/json' }, payload: fits });
    expect(ok.statusCode).toBe(201);
    const text = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: { ...s.headers, 'content-type': 'text/plain' },
      payload: JSON.stringify(orderBody()),
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('validation_failed');
  });
});
