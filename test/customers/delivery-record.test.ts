import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { orderThatEnds } from '../helpers/cod.js';
import { get, teeShop } from '../helpers/fulfilment.js';

/**
 * GET /customers' delivery_record, from orders taken through the real flows (POST /orders, staff shipping, the courier's
 * tracking word, staff moves): each order counts once, by how it ended.
 */
const ctx = useTestApp();
const PHONE = '9876543210';

describe("a customer's delivery record", () => {
  it('counts delivered, returned to origin and cancelled orders, each once', async () => {
    const s = await teeShop(ctx, '50');
    const ends = ['delivered', 'delivered', 'returned after delivery', 'rto', 'rto', 'returned undelivered', 'cancelled', 'open'] as const;
    for (const end of ends) await orderThatEnds(ctx, s, PHONE, end);
    const res = await get(ctx, s.headers, `/customers?phone=${PHONE}&recent_orders=1`);
    expect(res.status).toBe(200);
    // a return after delivery stays delivered; a parcel staff took back without a delivery is a return to origin
    expect(res.body.data.delivery_record).toEqual({ delivered: 3, returned_to_origin: 3, cancelled: 1 });
    expect(res.body.data.recent_orders).toHaveLength(1);
  });

  it('counts an rto parcel once when staff then record the order returned', async () => {
    const s = await teeShop(ctx);
    const ref = await orderThatEnds(ctx, s, PHONE, 'rto');
    await ctx.services.fulfilment.move(s.companyId, ref, 'returned');
    expect((await get(ctx, s.headers, `/customers?phone=${PHONE}`)).body.data.delivery_record).toEqual({ delivered: 0, returned_to_origin: 1, cancelled: 0 });
  });

  it("counts only the company's own orders of that customer", async () => {
    const a = await teeShop(ctx);
    const b = await teeShop(ctx);
    await orderThatEnds(ctx, a, PHONE, 'rto');
    await orderThatEnds(ctx, a, '9876500000', 'rto');
    await orderThatEnds(ctx, b, PHONE, 'delivered');
    expect((await get(ctx, a.headers, `/customers?phone=${PHONE}`)).body.data.delivery_record).toEqual({ delivered: 0, returned_to_origin: 1, cancelled: 0 });
    expect((await get(ctx, b.headers, `/customers?phone=${PHONE}`)).body.data.delivery_record).toEqual({ delivered: 1, returned_to_origin: 0, cancelled: 0 });
  });
});
