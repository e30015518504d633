import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createFulfilmentService } from '../../src/fulfilment/fulfilment.service.js';
import { get, orderBody, post, stockView, teeShop } from '../helpers/fulfilment.js';

const ctx = useTestApp();

async function placed(qty = 2, stock = '10') {
  const s = await teeShop(ctx, stock);
  const res = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'TEE-M', quantity: qty }] }));
  expect(res.status).toBe(201);
  return { s, ref: res.body.data.order_number as string };
}

const move = (companyId: string, ref: string, to: Parameters<ReturnType<typeof createFulfilmentService>['move']>[2]) =>
  ctx.services.fulfilment.move(companyId, ref, to);

describe('order moves and their stock effects', () => {
  it('confirmed -> packed keeps the reservation; packed -> shipped converts it; shipped -> delivered changes nothing; delivered -> returned puts stock back', async () => {
    const { s, ref } = await placed(2);
    expect(await stockView(ctx, s)).toEqual({ on_hand: '10.000', reserved: '2.000', open: '2.000', available: '8.000' });

    expect((await move(s.companyId, ref, 'packed')).order_status).toBe('packed');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '10.000', reserved: '2.000', open: '2.000', available: '8.000' });

    const shipped = await move(s.companyId, ref, 'shipped');
    expect(shipped.order_status).toBe('shipped');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '8.000', reserved: '0.000', open: '0', available: '8.000' });
    expect(shipped.invoice?.total).toBe('998.00');

    expect((await move(s.companyId, ref, 'delivered')).order_status).toBe('delivered');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '8.000', reserved: '0.000', open: '0', available: '8.000' });

    expect((await move(s.companyId, ref, 'returned')).order_status).toBe('returned');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '10.000', reserved: '0.000', open: '0', available: '10.000' });
    const lookup = await get(ctx, s.headers, `/orders/${ref}`);
    expect(lookup.body.data.order_status).toBe('returned');
    expect(lookup.body.data.status_label).toBe('Returned to us');
  });

  it('confirmed -> shipped directly converts; shipped -> returned restores on_hand', async () => {
    const { s, ref } = await placed(3);
    await move(s.companyId, ref, 'shipped');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '7.000', reserved: '0.000', open: '0', available: '7.000' });
    await move(s.companyId, ref, 'returned');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '10.000', reserved: '0.000', open: '0', available: '10.000' });
  });

  it.each(['confirmed', 'packed'] as const)('%s -> cancelled releases the reservation (on_hand unchanged)', async (from) => {
    const { s, ref } = await placed(4);
    if (from === 'packed') await move(s.companyId, ref, 'packed');
    expect((await stockView(ctx, s)).available).toBe('6.000');
    expect((await move(s.companyId, ref, 'cancelled')).order_status).toBe('cancelled');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '10.000', reserved: '0.000', open: '0', available: '10.000' });
    const [r] = await ctx.db.query<{ status: string }>(sql`SELECT status FROM stock_reservations WHERE company_id = ${s.companyId}`);
    expect(r.status).toBe('released');
  });

  const illegal: [string[], string][] = [
    [[], 'confirmed'],
    [[], 'delivered'],
    [[], 'returned'],
    [['packed'], 'packed'],
    [['packed'], 'delivered'],
    [['packed'], 'returned'],
    [['packed'], 'confirmed'],
    [['shipped'], 'cancelled'],
    [['shipped'], 'packed'],
    [['shipped'], 'confirmed'],
    [['shipped'], 'shipped'],
    [['shipped', 'delivered'], 'cancelled'],
    [['shipped', 'delivered'], 'shipped'],
    [['shipped', 'delivered'], 'delivered'],
    [['cancelled'], 'confirmed'],
    [['cancelled'], 'shipped'],
    [['cancelled'], 'returned'],
    [['cancelled'], 'cancelled'],
    [['shipped', 'returned'], 'returned'],
    [['shipped', 'returned'], 'shipped'],
    [['shipped', 'returned'], 'delivered'],
  ];
  it.each(illegal)('after %j, a move to %s is refused with a clear message and changes nothing', async (path, to) => {
    const { s, ref } = await placed(2);
    for (const step of path) await move(s.companyId, ref, step as never);
    const before = await stockView(ctx, s);
    const status = (await ctx.services.fulfilment.view(s.companyId, ref)).order_status;
    await expect(move(s.companyId, ref, to as never)).rejects.toThrow(new RegExp(`is ${status}; it cannot move to ${to}`));
    expect(await stockView(ctx, s)).toEqual(before);
    expect((await ctx.services.fulfilment.view(s.companyId, ref)).order_status).toBe(status);
  });

  it('two concurrent cancels of one order release once (the order row lock serialises them)', async () => {
    const { s, ref } = await placed(2);
    const results = await Promise.allSettled([move(s.companyId, ref, 'cancelled'), move(s.companyId, ref, 'cancelled')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await stockView(ctx, s)).toEqual({ on_hand: '10.000', reserved: '0.000', open: '0', available: '10.000' });
  });

  it('another company cannot move the order', async () => {
    const { ref } = await placed(1);
    const other = await teeShop(ctx);
    await expect(move(other.companyId, ref, 'packed')).rejects.toThrow(/no order/);
  });
});

describe('drafts', () => {
  const draftBody = (extra: Record<string, unknown> = {}) => ({
    customer: { name: 'Ravi', phone: '9876501234' },
    items: [{ product_id: 'TEE-M', quantity: 3 }],
    payment: 'cod' as const,
    delivery_address: { line1: '4 Park St', city: 'Kolkata', pincode: '700016' },
    ...extra,
  });

  it('a draft reserves nothing and is invisible to lookup until confirmed; confirming reserves stock', async () => {
    const s = await teeShop(ctx, '5');
    const draft = await ctx.services.fulfilment.createDraft(s.companyId, draftBody({ external_reference: 'draft-ext-1' }));
    expect(draft.order_status).toBe('draft');
    expect(draft.amount).toBe('1497.00');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '5.000', reserved: '0.000', open: '0', available: '5.000' });
    for (const ref of [draft.order_number, draft.order_id, 'draft-ext-1']) expect((await get(ctx, s.headers, `/orders/${ref}`)).status).toBe(404);
    const customer = await get(ctx, s.headers, '/customers?phone=9876501234');
    expect(customer.body.data.recent_orders).toEqual([]);

    const confirmed = await ctx.services.fulfilment.confirm(s.companyId, draft.order_number);
    expect(confirmed.order_status).toBe('confirmed');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '5.000', reserved: '3.000', open: '3.000', available: '2.000' });
    const lookup = await get(ctx, s.headers, `/orders/${draft.order_number}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body.data).toMatchObject({ order_status: 'confirmed', amount: '1497.00', shipment: null, invoice: null });
  });

  it('confirming a draft with too little stock is insufficient_stock (409) and leaves the draft', async () => {
    const s = await teeShop(ctx, '2');
    const draft = await ctx.services.fulfilment.createDraft(s.companyId, draftBody());
    const err = await ctx.services.fulfilment.confirm(s.companyId, draft.order_number).catch((e) => e);
    expect(err.kind).toBe('insufficient_stock');
    expect(err.status).toBe(409);
    expect(err.details).toEqual([{ product_id: 'TEE-M', requested: '3.000', available: '2.000' }]);
    expect((await ctx.services.fulfilment.view(s.companyId, draft.order_number)).order_status).toBe('draft');
    expect(await stockView(ctx, s)).toEqual({ on_hand: '2.000', reserved: '0.000', open: '0', available: '2.000' });
  });

  it('confirming without an active ship-from location is unprocessable (422)', async () => {
    const s = await teeShop(ctx, '9');
    const draft = await ctx.services.fulfilment.createDraft(s.companyId, draftBody());
    await ctx.db.query(sql`UPDATE stock_locations SET active = false WHERE company_id = ${s.companyId}`);
    const err = await ctx.services.fulfilment.confirm(s.companyId, draft.order_number).catch((e) => e);
    expect(err.kind).toBe('unprocessable');
    expect(err.status).toBe(422);
    expect((await ctx.services.fulfilment.view(s.companyId, draft.order_number)).order_status).toBe('draft');
  });

  it('a draft for an unknown product is refused (404) with nothing written', async () => {
    const s = await teeShop(ctx, '9');
    const err = await ctx.services.fulfilment.createDraft(s.companyId, draftBody({ items: [{ product_id: 'NOPE', quantity: 1 }] })).catch((e) => e);
    expect(err.kind).toBe('not_found');
    const [n] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM orders WHERE company_id = ${s.companyId}`);
    expect(n.n).toBe(0);
  });
});
