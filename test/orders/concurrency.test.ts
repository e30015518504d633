import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { count, fetchJson, listeningUrl, orderBody, shop, stockRow, uid } from '../helpers/orders.js';

const ctx = useTestApp();

describe('POST /orders under real concurrency', () => {
  it('50 parallel orders for a variant with 10 in stock: exactly 10 succeed, 40 get 409, never oversold', async () => {
    const s = await shop(ctx, [{ sku: 'HOT', name: 'Hot item', variants: [{ sku: 'HOT-1', selling_price: '499.00', stock: '10' }] }]);
    const url = await listeningUrl(ctx);
    const variantId = s.variantIds['HOT-1'];

    let sampling = true;
    const samples: { on_hand: string; reserved: string }[] = [];
    const sampler = (async () => {
      while (sampling) {
        samples.push(await stockRow(ctx, s.companyId, variantId));
        await new Promise((r) => setTimeout(r, 2));
      }
    })();

    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetchJson(`${url}/orders`, {
          method: 'POST',
          headers: s.headers,
          body: orderBody({ items: [{ product_id: 'HOT-1', quantity: 1 }], customer: { name: `Buyer ${i}`, phone: `98765${String(10000 + i)}` } }),
        }),
      ),
    );
    sampling = false;
    await sampler;

    const statuses = results.map((r) => r.status);
    expect(statuses.filter((x) => x === 201)).toHaveLength(10);
    expect(statuses.filter((x) => x === 409)).toHaveLength(40);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body.error.code).toBe('insufficient_stock');
      expect(r.body.error.details).toEqual([{ product_id: 'HOT-1', requested: '1.000', available: '0.000' }]);
    }
    const row = await stockRow(ctx, s.companyId, variantId);
    expect(row.reserved).toBe('10.000');
    expect(row.open).toBe('10.000');
    expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples) expect(Number(sample.on_hand) - Number(sample.reserved)).toBeGreaterThanOrEqual(0);
    expect(await count(ctx, 'orders', s.companyId)).toBe(10);
    expect(await count(ctx, 'order_lines', s.companyId)).toBe(10);
    // Refused orders wrote nothing, not even their (new) customers.
    expect(await count(ctx, 'customers', s.companyId)).toBe(10);
    const numbers = new Set(results.filter((r) => r.status === 201).map((r) => r.body.data.order_number));
    expect(numbers.size).toBe(10);
  });

  it('20 parallel requests with one external_reference: one order, 1 × 201 and 19 × 200 duplicates of it', async () => {
    const s = await shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '100' }] }]);
    const url = await listeningUrl(ctx);
    const ref = `same-${uid()}`;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetchJson(`${url}/orders`, {
          method: 'POST',
          headers: s.headers,
          // Different bodies on purpose: the reference alone decides.
          body: orderBody({ external_reference: ref, items: [{ product_id: 'TEE-M', quantity: (i % 3) + 1 }] }),
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 201)).toHaveLength(1);
    expect(statuses.filter((x) => x === 200)).toHaveLength(19);
    const ids = new Set(results.map((r) => r.body.data.order_id));
    expect(ids.size).toBe(1);
    for (const r of results.filter((x) => x.status === 200)) expect(r.body.duplicate).toBe(true);
    const created = results.find((r) => r.status === 201)!;
    expect(created.body.duplicate).toBeUndefined();
    for (const r of results) expect(r.body.data).toEqual(created.body.data);
    expect(await count(ctx, 'orders', s.companyId)).toBe(1);
    const row = await stockRow(ctx, s.companyId, s.variantIds['TEE-M']);
    expect(row.reserved).toBe(created.body.data.items[0].quantity);
    expect(row.open).toBe(row.reserved);
  });

  it('concurrent duplicates from different (new) phones leave exactly one order and one customer', async () => {
    const s = await shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '100' }] }]);
    const url = await listeningUrl(ctx);
    const ref = `phones-${uid()}`;
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        fetchJson(`${url}/orders`, {
          method: 'POST',
          headers: s.headers,
          body: orderBody({ external_reference: ref, customer: { name: `C${i}`, phone: `97000${String(10000 + i)}` } }),
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(14);
    expect(new Set(results.map((r) => r.body.data.order_id)).size).toBe(1);
    expect(await count(ctx, 'orders', s.companyId)).toBe(1);
    expect(await count(ctx, 'customers', s.companyId)).toBe(1);
  });

  it('duplicates of an order that is refused (409) do not get a 500 or 409 for the duplicate: each proceeds on its own', async () => {
    const s = await shop(ctx, [{ sku: 'LOW', name: 'Low', variants: [{ sku: 'LOW-1', selling_price: '10.00', stock: '1' }] }]);
    const url = await listeningUrl(ctx);
    const ref = `refused-${uid()}`;
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetchJson(`${url}/orders`, {
          method: 'POST',
          headers: s.headers,
          body: orderBody({ external_reference: ref, items: [{ product_id: 'LOW-1', quantity: 2 }] }),
        }),
      ),
    );
    expect(results.every((r) => r.status === 409)).toBe(true);
    expect(await count(ctx, 'orders', s.companyId)).toBe(0);
    // The same reference can then succeed, once.
    const ok = await fetchJson(`${url}/orders`, {
      method: 'POST',
      headers: s.headers,
      body: orderBody({ external_reference: ref, items: [{ product_id: 'LOW-1', quantity: 1 }] }),
    });
    expect(ok.status).toBe(201);
  });

  it('orders over several variants in opposite item orders in parallel: no error reaches a caller, stock adds up', async () => {
    const variants = ['A', 'B', 'C', 'D'].map((k) => ({ sku: `MIX-${k}`, selling_price: '100.00', stock: '1000' }));
    const s = await shop(ctx, [{ sku: 'MIX', name: 'Mix', unit: 'KG', variants }]); // by weight: 1.5 a line
    const url = await listeningUrl(ctx);
    const skus = variants.map((v) => v.sku);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const order = i % 2 === 0 ? skus : [...skus].reverse();
        return fetchJson(`${url}/orders`, {
          method: 'POST',
          headers: s.headers,
          body: orderBody({
            items: order.map((sku) => ({ product_id: sku, quantity: '1.5' })),
            // One customer for all: also contends on the customer row.
            customer: { name: 'Same Buyer', phone: '9876500001' },
          }),
        });
      }),
    );
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(201));
    for (const sku of skus) {
      const row = await stockRow(ctx, s.companyId, s.variantIds[sku]);
      expect(row.reserved).toBe('60.000');
      expect(row.open).toBe('60.000');
    }
    const [{ total }] = await ctx.db.query<{ total: string }>(sql`SELECT sum(amount)::text AS total FROM orders WHERE company_id = ${s.companyId}`);
    expect(total).toBe('24000.00');
    expect(await count(ctx, 'customers', s.companyId)).toBe(1);
  });
});
