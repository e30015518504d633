import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { codAvailability, orderThatEnds } from '../helpers/cod.js';
import { count } from '../helpers/orders.js';
import { get, orderBody, post, stockRow, teeShop } from '../helpers/fulfilment.js';

/**
 * The COD rules on POST /orders (422 `unprocessable`, details naming each rule, nothing written) and the read-only
 * check GET /cod/availability, which must agree with placement at every edge. TEE-M sells at 499.00.
 */
const ctx = useTestApp();
const PHONE = '9876543210';

/** A shop with these COD rules set through the service (the settings doors are tested in cod-settings.test.ts). */
async function ruledShop(rules: Parameters<typeof ctx.services.codSettings.set>[2], stock = '100') {
  const s = await teeShop(ctx, stock);
  await ctx.services.codSettings.set(s.companyId, { kind: 'cli', name: 'test' }, rules);
  return s;
}

const cod = (overrides: Record<string, unknown> = {}) => orderBody({ payment: 'cod', customer: { name: 'Asha Rao', phone: PHONE }, ...overrides });
const at = (pincode: string) => ({ line1: '12 MG Road', city: 'Somewhere', pincode });
const quantity = (n: number) => ({ items: [{ product_id: 'TEE-M', quantity: n }] });

/** Places the COD order and asks the check the same question; both answers, and whether they agree. */
async function placeAndCheck(s: Awaited<ReturnType<typeof teeShop>>, body: Record<string, unknown>, check: Record<string, string>) {
  const asked = await codAvailability(ctx, s.headers, check);
  expect(asked.status, JSON.stringify(asked.body)).toBe(200);
  const placed = await post(ctx, s.headers, body);
  const refusedRules = placed.status === 422 ? placed.body.error.details.map((d: { rule: string }) => d.rule) : [];
  expect(asked.body.data.refusals.map((r: { rule: string }) => r.rule)).toEqual(refusedRules);
  expect(asked.body.data.available).toBe(placed.status === 201);
  return { placed, asked: asked.body.data };
}

describe('blocked PIN codes', () => {
  it('refuse COD for a listed PIN and for each end of a range, not for the PINs just outside; the check agrees at each', async () => {
    const s = await ruledShop({ blocked_pincodes: ['560038', '110010-110020'] });
    for (const [pincode, refused] of [
      ['560038', true],
      ['560037', false],
      ['560039', false],
      ['110009', false],
      ['110010', true],
      ['110015', true],
      ['110020', true],
      ['110021', false],
    ] as const) {
      const { placed } = await placeAndCheck(s, cod({ delivery_address: at(pincode) }), { pincode });
      expect(placed.status, pincode).toBe(refused ? 422 : 201);
      if (refused)
        expect(placed.body.error).toEqual({
          code: 'unprocessable',
          message: expect.stringContaining('blocked_pincode'),
          details: [{ rule: 'blocked_pincode', path: 'delivery_address.pincode', message: expect.stringContaining(pincode) }],
        });
    }
  });

  it('apply to the address on file when the order gives none', async () => {
    const s = await ruledShop({ blocked_pincodes: ['560038'] });
    // the first (prepaid) order saves 560038 to the new customer's record
    expect((await post(ctx, s.headers, orderBody({ customer: { name: 'Asha Rao', phone: PHONE } }))).status).toBe(201);
    const { placed } = await placeAndCheck(s, cod({ delivery_address: undefined }), { pincode: '560038' });
    expect(placed.status).toBe(422);
    expect(placed.body.error.details).toEqual([{ rule: 'blocked_pincode', path: 'delivery_address', message: expect.any(String) }]);
    // the same customer with a given address elsewhere is offered COD
    expect((await post(ctx, s.headers, cod({ delivery_address: at('560001') }))).status).toBe(201);
  });

  it('leave an order with no address at all to be placed (nothing to check yet)', async () => {
    const s = await ruledShop({ blocked_pincodes: ['560038'] });
    const res = await post(ctx, s.headers, cod({ delivery_address: undefined, customer: { name: 'New Buyer', phone: '9876500001' } }));
    expect(res.status).toBe(201);
    expect(res.body.data.delivery_address).toBeNull();
  });
});

describe('the maximum COD order value', () => {
  it('takes an order of exactly the maximum and refuses one a paisa above it; the check agrees', async () => {
    const s = await ruledShop({ max_order_value: '998.00' });
    const equal = await placeAndCheck(s, cod(quantity(2)), { amount: '998.00' });
    expect(equal.placed.status).toBe(201);
    await ctx.services.codSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { max_order_value: '997.99' });
    const above = await placeAndCheck(s, cod(quantity(2)), { amount: '998.00' });
    expect(above.placed.status).toBe(422);
    expect(above.placed.body.error.details).toEqual([{ rule: 'max_order_value', path: 'items', message: expect.stringContaining('997.99') }]);
  });
});

describe('the returns-to-origin threshold', () => {
  it('takes a customer with exactly the threshold of returns to origin and refuses one more; the check agrees', async () => {
    const s = await ruledShop({ rto_threshold: 1 });
    await orderThatEnds(ctx, s, PHONE, 'rto');
    expect((await placeAndCheck(s, cod(), { phone: PHONE })).placed.status).toBe(201);
    await orderThatEnds(ctx, s, PHONE, 'returned undelivered');
    const refused = await placeAndCheck(s, cod(), { phone: '+91 98765 43210' });
    expect(refused.placed.status).toBe(422);
    expect(refused.placed.body.error.details).toEqual([
      { rule: 'rto_threshold', path: 'customer.phone', message: expect.stringContaining('2 of their parcels') },
    ]);
    // the count is find_customer's
    expect((await get(ctx, s.headers, `/customers?phone=${PHONE}`)).body.data.delivery_record.returned_to_origin).toBe(2);
  });

  it('at 0 refuses any return to origin, and never a new customer or one whose parcels were delivered', async () => {
    const s = await ruledShop({ rto_threshold: 0 });
    expect((await placeAndCheck(s, cod({ customer: { name: 'New', phone: '9876500002' } }), { phone: '9876500002' })).placed.status).toBe(201);
    await orderThatEnds(ctx, s, PHONE, 'delivered');
    await orderThatEnds(ctx, s, PHONE, 'returned after delivery');
    await orderThatEnds(ctx, s, PHONE, 'cancelled');
    expect((await placeAndCheck(s, cod(), { phone: PHONE })).placed.status).toBe(201);
    await orderThatEnds(ctx, s, PHONE, 'rto');
    expect((await placeAndCheck(s, cod(), { phone: PHONE })).placed.status).toBe(422);
  });
});

describe('COD refusals', () => {
  it('name every rule broken, and write nothing: no order, no customer, no reservation, no job', async () => {
    const s = await ruledShop({ blocked_pincodes: ['560038'], max_order_value: '100', rto_threshold: 0 });
    const phone = '9876500003';
    const before = { orders: await count(ctx, 'orders', s.companyId), customers: await count(ctx, 'customers', s.companyId) };
    const { placed, asked } = await placeAndCheck(s, cod({ customer: { name: 'New', phone } }), { pincode: '560038', amount: '499.00', phone });
    expect(placed.status).toBe(422);
    expect(placed.body.error.details.map((d: { rule: string }) => d.rule)).toEqual(['blocked_pincode', 'max_order_value']);
    expect(asked).toMatchObject({ available: false, not_checked: [] });
    expect(await count(ctx, 'orders', s.companyId)).toBe(before.orders);
    expect(await count(ctx, 'customers', s.companyId)).toBe(before.customers);
    expect(await count(ctx, 'stock_reservations', s.companyId)).toBe(0);
    expect(await count(ctx, 'jobs', s.companyId)).toBe(0);
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('0.000');
  });

  it('never touch a prepaid order', async () => {
    const s = await ruledShop({ blocked_pincodes: ['560038'], max_order_value: '1', rto_threshold: 0 });
    await orderThatEnds(ctx, s, PHONE, 'rto');
    const res = await post(ctx, s.headers, orderBody({ customer: { name: 'Asha Rao', phone: PHONE }, delivery_address: at('560038'), ...quantity(3) }));
    expect(res.status).toBe(201);
    expect(res.body.data.payment).toBe('prepaid');
  });

  it('come after idempotency: a repeat of a placed external_reference answers its order, even once a rule would refuse it', async () => {
    const s = await ruledShop({});
    const body = cod({ delivery_address: at('560038') });
    const first = await post(ctx, s.headers, body);
    expect(first.status).toBe(201);
    await ctx.services.codSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { blocked_pincodes: ['560038'] });
    const again = await post(ctx, s.headers, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: first.body.data, duplicate: true });
  });

  it("count only the company's own rules and returns to origin", async () => {
    const strict = await ruledShop({ blocked_pincodes: ['560038'], rto_threshold: 0 });
    const other = await teeShop(ctx);
    // the same phone's return to origin at the strict company does not follow them to the other
    await orderThatEnds(ctx, strict, PHONE, 'rto');
    await orderThatEnds(ctx, other, PHONE, 'delivered');
    const elsewhere = await placeAndCheck(other, cod({ delivery_address: at('560038') }), { pincode: '560038', phone: PHONE });
    expect(elsewhere.placed.status).toBe(201);
    expect(elsewhere.asked).toEqual({ available: true, refusals: [], not_checked: [] });
    // and the other company's deliveries do not lift the strict one's refusal
    expect((await placeAndCheck(strict, cod({ delivery_address: at('560001') }), { pincode: '560001', phone: PHONE })).placed.status).toBe(422);
  });
});

describe('GET /cod/availability', () => {
  it('lists the rules it could not check for want of a parameter, and checks none a company has not set', async () => {
    const bare = await teeShop(ctx);
    expect((await codAvailability(ctx, bare.headers, {})).body).toEqual({ data: { available: true, refusals: [], not_checked: [] } });
    const s = await ruledShop({ blocked_pincodes: ['560038'], max_order_value: '500', rto_threshold: 3 });
    expect((await codAvailability(ctx, s.headers, {})).body.data).toEqual({
      available: true,
      refusals: [],
      not_checked: ['blocked_pincode', 'max_order_value', 'rto_threshold'],
    });
    expect((await codAvailability(ctx, s.headers, { amount: '500.01' })).body.data).toEqual({
      available: false,
      refusals: [{ rule: 'max_order_value', message: expect.stringContaining('500.01') }],
      not_checked: ['blocked_pincode', 'rto_threshold'],
    });
  });

  it('refuses bad parameters with 400 naming each, and answers any key of the company', async () => {
    const s = await ruledShop({ max_order_value: '500' });
    for (const [params, path] of [
      [{ pincode: '56003' }, 'pincode'],
      [{ pincode: 'abcdef' }, 'pincode'],
      [{ amount: '12.345' }, 'amount'],
      [{ amount: '-5' }, 'amount'],
      [{ amount: '1e3' }, 'amount'],
      [{ phone: '12' }, 'phone'],
      [{ phone: 'not a phone' }, 'phone'],
    ] as const) {
      const res = await codAvailability(ctx, s.headers, params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
    expect((await codAvailability(ctx, s.headers, { amount: '0' })).body.data.available).toBe(true);
  });
});
