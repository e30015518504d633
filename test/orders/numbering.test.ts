import { describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp } from '../helpers/app.js';
import { createPgDatabase } from '../../src/db/client.js';
import { ORDER_NUMBER_BLOCK } from '../../src/orders/order-numbers.js';
import { fetchJson, listeningUrl, orderBody, post, shop } from '../helpers/orders.js';

const ctx = useTestApp();

const products = [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '1000' }] }];
const num = (orderNumber: string) => {
  expect(orderNumber).toMatch(/^ORD-\d+$/);
  return Number(orderNumber.slice(4));
};
const buyer = (i: number) => ({ name: `Buyer ${i}`, phone: `98765${String(10000 + i)}` });

describe('order numbers are per company', () => {
  it("two companies interleaving orders: each numbers its own consecutively from ORD-100001, drafts included; another company's orders leave no trace", async () => {
    const a = await shop(ctx, products);
    const b = await shop(ctx, products);
    const numbers: Record<'a' | 'b', number[]> = { a: [], b: [] };
    for (let i = 0; i < 4; i++) {
      for (const [k, s] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const res = await post(ctx, s.headers, orderBody({ customer: buyer(i) }));
        expect(res.status).toBe(201);
        numbers[k].push(num(res.body.data.order_number));
      }
    }
    // A staff draft takes the company's next number too (one numbering for both writers of orders).
    const draft = await ctx.services.fulfilment.createDraft(a.companyId, { customer: buyer(9), items: [{ product_id: 'TEE-M', quantity: 1 }], payment: 'cod' });
    numbers.a.push(num(draft.order_number));
    numbers.a.push(num((await post(ctx, a.headers, orderBody())).body.data.order_number));

    expect(numbers.a).toEqual([100001, 100002, 100003, 100004, 100005, 100006]);
    expect(numbers.b).toEqual([100001, 100002, 100003, 100004]);
  });

  it('30 truly parallel POST /orders for each of two companies: each company gets 30 consecutive numbers, none repeated', async () => {
    const a = await shop(ctx, products);
    const b = await shop(ctx, products);
    const url = await listeningUrl(ctx);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const s = i % 2 ? b : a;
        return fetchJson(`${url}/orders`, { method: 'POST', headers: s.headers, body: orderBody({ customer: buyer(i) }) }).then((r) => ({
          company: s.companyId,
          ...r,
        }));
      }),
    );
    for (const s of [a, b]) {
      const mine = results.filter((r) => r.company === s.companyId);
      expect(mine.map((r) => r.status)).toEqual(Array(30).fill(201));
      const sorted = mine.map((r) => num(r.body.data.order_number)).sort((x, y) => x - y);
      expect(sorted).toEqual(Array.from({ length: 30 }, (_, i) => sorted[0] + i));
    }
  });

  it('two instances on one database (each with its own blocks), orders in parallel: numbers unique per company and company-local', async () => {
    if (!ctx.testDb.url) return; // a second connection pool to the same database needs PostgreSQL
    const secondDb = createPgDatabase({ url: ctx.testDb.url, poolMax: 10, statementTimeoutMs: 30_000, connectTimeoutMs: 10_000 });
    const second = await buildTestApp(secondDb);
    try {
      const a = await shop(ctx, products);
      const b = await shop(ctx, products);
      const urls = [await listeningUrl(ctx), await listeningUrl(second)];
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) => {
          const s = i % 4 < 2 ? a : b;
          return fetchJson(`${urls[i % 2]}/orders`, { method: 'POST', headers: s.headers, body: orderBody({ customer: buyer(i) }) }).then((r) => ({
            company: s.companyId,
            ...r,
          }));
        }),
      );
      const per = (companyId: string) => results.filter((r) => r.company === companyId).map((r) => (expect(r.status).toBe(201), num(r.body.data.order_number)));
      const [na, nb] = [per(a.companyId), per(b.companyId)];
      for (const n of [na, nb]) {
        expect(new Set(n).size).toBe(40);
        // From the company's own series: at most one block per instance left partly used.
        expect(Math.min(...n)).toBe(100001);
        expect(Math.max(...n)).toBeLessThan(100001 + 40 + 2 * ORDER_NUMBER_BLOCK);
      }
      // The same numbers exist in both companies: nothing global is revealed.
      expect(na.filter((n) => nb.includes(n)).length).toBeGreaterThan(0);
    } finally {
      await second.app.close();
      await secondDb.close();
    }
  });
});
