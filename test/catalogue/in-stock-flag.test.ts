import { sql } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';
import { refreshInStockOfVariants } from '../../src/catalogue/catalogue.queries.js';
import type { Db } from '../../src/db/index.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, get, listeningUrl, orderBody, post, shop, uid } from '../helpers/orders.js';
import type { ProductFixture } from '../helpers/catalogue-fixtures.js';

/**
 * products.in_stock and catalogue_counts.in_stock_products (migration 0020): GET /catalog/products?in_stock=true walks
 * the flag and reads its total from the counter, so every writer of stock, variants and locations keeps both equal to
 * the rule (an active variant with positive availability at the active ship-from location) in its own transaction.
 */

const ctx = useTestApp();

const catalogue = (): ProductFixture[] => [
  {
    sku: 'TEE',
    name: 'Tee',
    variants: [
      { sku: 'TEE-M', selling_price: '499.00', stock: '2' },
      { sku: 'TEE-L', selling_price: '499.00', stock: '0' },
    ],
  },
  { sku: 'MUG', name: 'Mug', variants: [{ sku: 'MUG-1', selling_price: '299.00', stock: { WH: '5', STORE: '1' } }] },
  { sku: 'CAP', name: 'Cap', variants: [{ sku: 'CAP-1', selling_price: '199.00', stock: { WH: '0', STORE: '4' } }] },
];

async function stockShop(products = catalogue()) {
  const s = await shop(ctx, products);
  const { key } = await ctx.services.keys.create(s.companyId, { kind: 'cli', name: 'test' }, 'inventory sync', ['catalogue']);
  return { ...s, stockKey: key };
}

/** SKUs and total of the in_stock=true browse, as a client sees it. */
async function inStock(headers: Record<string, string>) {
  const res = await get(ctx, headers, '/catalog/products?in_stock=true');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { skus: (res.body.data as { sku: string }[]).map((p) => p.sku), total: res.body.total as number };
}

/** Every product of the company whose flag disagrees with the rule, and the counter against a count of the flags. */
async function drift(companyId: string) {
  const wrong = await ctx.db.query<{ sku: string; in_stock: boolean }>(sql`
    SELECT p.sku, p.in_stock FROM products p
    WHERE p.company_id = ${companyId}
      AND p.in_stock <> EXISTS (
        SELECT 1 FROM variants v
        JOIN stock_levels s ON s.company_id = ${companyId} AND s.variant_id = v.id
        JOIN stock_locations loc ON loc.company_id = ${companyId} AND loc.id = s.location_id AND loc.ships_orders AND loc.active
        WHERE v.company_id = ${companyId} AND v.product_id = p.id AND v.active AND stock_available(s.on_hand, s.reserved) > 0)`);
  const [counts] = await ctx.db.query<{ counter: number; flagged: number }>(sql`
    SELECT coalesce((SELECT in_stock_products FROM catalogue_counts WHERE company_id = ${companyId}), 0) AS counter,
           (SELECT count(*)::int FROM products WHERE company_id = ${companyId} AND listed AND in_stock) AS flagged`);
  return { wrong, counter: counts.counter, flagged: counts.flagged };
}

const put = (key: string, items: unknown) => ctx.app.inject({ method: 'PUT', url: `${BASE}/catalog/stock`, headers: { 'x-api-key': key }, payload: { items } });

describe('GET /catalog/products?in_stock=true follows every stock change at once', () => {
  it('an order taking the last units removes the product on the very next request; a cancel brings it back', async () => {
    const s = await stockShop();
    expect(await inStock(s.headers)).toEqual({ skus: ['MUG', 'TEE'], total: 2 });

    const placed = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'TEE-M', quantity: 2 }] }));
    expect(placed.status).toBe(201);
    expect(await inStock(s.headers)).toEqual({ skus: ['MUG'], total: 1 });
    expect(await drift(s.companyId)).toEqual({ wrong: [], counter: 1, flagged: 1 });

    await ctx.services.fulfilment.move(s.companyId, placed.body.data.order_number, 'cancelled');
    expect(await inStock(s.headers)).toEqual({ skus: ['MUG', 'TEE'], total: 2 });
    expect(await drift(s.companyId)).toEqual({ wrong: [], counter: 2, flagged: 2 });
  });

  it('an order leaving units behind keeps the product; shipping the last units keeps it out, a return brings it back', async () => {
    const s = await stockShop();
    expect((await post(ctx, s.headers, orderBody({ items: [{ product_id: 'MUG-1', quantity: 4 }] }))).status).toBe(201);
    expect(await inStock(s.headers)).toEqual({ skus: ['MUG', 'TEE'], total: 2 });

    const last = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'MUG-1', quantity: 1 }] }));
    expect(await inStock(s.headers)).toEqual({ skus: ['TEE'], total: 1 });
    const ref = last.body.data.order_number as string;
    await ctx.services.fulfilment.move(s.companyId, ref, 'shipped');
    expect(await inStock(s.headers)).toEqual({ skus: ['TEE'], total: 1 });
    await ctx.services.fulfilment.move(s.companyId, ref, 'delivered');
    await ctx.services.fulfilment.move(s.companyId, ref, 'returned');
    expect(await inStock(s.headers)).toEqual({ skus: ['MUG', 'TEE'], total: 2 });
    expect(await drift(s.companyId)).toEqual({ wrong: [], counter: 2, flagged: 2 });
  });

  it('PUT /catalog/stock restores a sold-out product and removes one set to zero; stock elsewhere never counts', async () => {
    const s = await stockShop();
    expect((await post(ctx, s.headers, orderBody({ items: [{ product_id: 'TEE-M', quantity: 2 }] }))).status).toBe(201);
    expect(await inStock(s.headers)).toEqual({ skus: ['MUG'], total: 1 });

    let res = await put(s.stockKey, [
      { sku: 'TEE-L', on_hand: '3' },
      { sku: 'MUG-1', on_hand: '0' },
      { sku: 'CAP-1', location: 'STORE', on_hand: '40' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(await inStock(s.headers)).toEqual({ skus: ['TEE'], total: 1 });

    res = await put(s.stockKey, [{ sku: 'CAP-1', on_hand: '1' }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(await inStock(s.headers)).toEqual({ skus: ['CAP', 'TEE'], total: 2 });
    expect(await drift(s.companyId)).toEqual({ wrong: [], counter: 2, flagged: 2 });
  });

  it('the import: a variant deactivated, the ship-from location deactivated and moved, each reflected at once', async () => {
    const s = await stockShop();
    const file = (over: { teeM?: boolean; wh?: boolean; storeShips?: boolean }) => ({
      locations: [
        { code: 'WH', name: 'Warehouse', active: over.wh ?? true, ships_orders: !over.storeShips },
        { code: 'STORE', name: 'Retail store', kind: 'store', ships_orders: over.storeShips ?? false },
      ],
      products: [
        {
          sku: 'TEE',
          name: 'Tee',
          tax_rate: '5',
          variants: [
            { sku: 'TEE-M', selling_price: '499.00', active: over.teeM ?? true, stock: { WH: '2' } },
            { sku: 'TEE-L', selling_price: '499.00', stock: { WH: '0' } },
          ],
        },
      ],
    });
    const run = (over: Parameters<typeof file>[0]) =>
      ctx.services.catalogueImport.importCatalogue(s.companyId, { kind: 'cli', name: 'test' }, file(over), { baseDir: '.' });

    // TEE-M inactive: TEE is still listed (TEE-L is active) but nothing active of it is in stock
    await run({ teeM: false });
    expect(await inStock(s.headers)).toEqual({ skus: ['MUG'], total: 1 });
    await run({});
    expect(await inStock(s.headers)).toEqual({ skus: ['MUG', 'TEE'], total: 2 });

    // the ship-from location inactive: nothing is in stock
    await run({ wh: false });
    expect(await inStock(s.headers)).toEqual({ skus: [], total: 0 });
    expect(await drift(s.companyId)).toEqual({ wrong: [], counter: 0, flagged: 0 });

    // the store ships orders now: what it holds counts (CAP 4, MUG 1), the warehouse's stock no longer does
    await run({ storeShips: true });
    expect(await inStock(s.headers)).toEqual({ skus: ['CAP', 'MUG'], total: 2 });
    expect(await drift(s.companyId)).toEqual({ wrong: [], counter: 2, flagged: 2 });
  });
});

describe('racing writers leave every flag equal to the rule', () => {
  it('truly parallel orders for the last units of two variants of one product, and a restock, over real HTTP', { timeout: 60_000 }, async () => {
    const url = await listeningUrl(ctx);
    for (let round = 0; round < 4; round++) {
      const s = await stockShop([
        {
          sku: 'SAREE',
          name: 'Saree',
          variants: [
            { sku: 'SAREE-RED', selling_price: '1999.00', stock: '2' },
            { sku: 'SAREE-BLUE', selling_price: '1999.00', stock: '2' },
          ],
        },
        { sku: 'SHAWL', name: 'Shawl', variants: [{ sku: 'SHAWL-1', selling_price: '999.00', stock: '1' }] },
      ]);
      const order = (sku: string) =>
        fetch(`${url}/orders`, {
          method: 'POST',
          headers: { 'x-api-key': s.key, 'content-type': 'application/json' },
          body: JSON.stringify(orderBody({ external_reference: `r-${uid()}`, items: [{ product_id: sku, quantity: 1 }] })),
        }).then((r) => r.status);
      const restock = fetch(`${url}/catalog/stock`, {
        method: 'PUT',
        headers: { 'x-api-key': s.stockKey, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ sku: round % 2 ? 'SAREE-BLUE' : 'SAREE-RED', on_hand: '3' }] }),
      }).then((r) => r.status);
      const statuses = await Promise.all([...['SAREE-RED', 'SAREE-BLUE', 'SHAWL-1'].flatMap((sku) => [order(sku), order(sku), order(sku)]), restock]);
      expect(statuses.at(-1)).toBe(200);
      for (const st of statuses.slice(0, -1)) expect([201, 409]).toContain(st);
      const d = await drift(s.companyId);
      expect(d.wrong).toEqual([]);
      expect(d.counter).toBe(d.flagged);
      // the browse agrees with the flags
      const { skus, total } = await inStock(s.headers);
      expect(total).toBe(d.flagged);
      expect(skus).not.toContain('SHAWL');
    }
  });

  it('orders emptying both variants of one product at the same moment take it out', { timeout: 60_000 }, async () => {
    const url = await listeningUrl(ctx);
    for (let round = 0; round < 4; round++) {
      const s = await stockShop([
        {
          sku: 'LAMP',
          name: 'Lamp',
          variants: [
            { sku: 'LAMP-BRASS', selling_price: '799.00', stock: '1' },
            { sku: 'LAMP-COPPER', selling_price: '799.00', stock: '1' },
          ],
        },
      ]);
      const order = (sku: string) =>
        fetch(`${url}/orders`, {
          method: 'POST',
          headers: { 'x-api-key': s.key, 'content-type': 'application/json' },
          body: JSON.stringify(orderBody({ external_reference: `l-${uid()}`, items: [{ product_id: sku, quantity: 1 }] })),
        }).then((r) => r.status);
      expect(await Promise.all([order('LAMP-BRASS'), order('LAMP-COPPER')])).toEqual([201, 201]);
      expect(await drift(s.companyId)).toEqual({ wrong: [], counter: 0, flagged: 0 });
      expect(await inStock(s.headers)).toEqual({ skus: [], total: 0 });
    }
  });

  // PGlite is one connection: two open transactions cannot overlap there.
  it.skipIf(inject('testDb') === null)(
    'two writers emptying different variants of one product in overlapping transactions: the second waits and sees the first',
    async () => {
      const s = await stockShop([
        {
          sku: 'VASE',
          name: 'Vase',
          variants: [
            { sku: 'VASE-S', selling_price: '599.00', stock: '1' },
            { sku: 'VASE-L', selling_price: '899.00', stock: '1' },
          ],
        },
      ]);
      // a writer's shape: the stock row written (and locked) first, then the product's flag refreshed
      const empty = async (tx: Db, sku: string) => {
        await tx.query(sql`UPDATE stock_levels SET on_hand = 0 WHERE company_id = ${s.companyId} AND variant_id = ${s.variantIds[sku]}`);
        await refreshInStockOfVariants(tx, s.companyId, [s.variantIds[sku]]);
      };
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let refreshed!: () => void;
      const first = new Promise<void>((r) => (refreshed = r));
      const one = ctx.db.tx(async (tx) => {
        await empty(tx, 'VASE-S'); // VASE-L is still in stock as this transaction sees it: no flip
        refreshed();
        await held;
      });
      await first;
      // without the product lock this one would see VASE-S still in stock (not yet committed) and flip nothing either
      const two = ctx.db.tx((tx) => empty(tx, 'VASE-L'));
      await new Promise((r) => setTimeout(r, 300));
      release();
      await Promise.all([one, two]);
      expect(await drift(s.companyId)).toEqual({ wrong: [], counter: 0, flagged: 0 });
      expect(await inStock(s.headers)).toEqual({ skus: [], total: 0 });
    },
  );
});
