import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, type Database } from '../../src/db/client.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, onCitus, type TestDatabase } from '../helpers/db.js';
import { BASE, orderBody, post, shop } from '../helpers/orders.js';
import { generateCatalogue } from '../../src/catalogue/catalogue.generate.js';
import { refreshInStockOfCompany } from '../../src/catalogue/catalogue.queries.js';

/**
 * The statements every catalogue read and every order begin with are planned once per connection, not once per
 * request: the catalogue's statement (the version, the key and the page's live stock) and the order's
 * prelude (the key, the reference, the location, the items, the customer). Both were re-planned on every request
 * (0.29 ms and 0.18 ms of planning for 0.05 and 0.02 ms of work: most of the database's CPU for a product's detail).
 * PostgreSQL's own counters for the connection's prepared statements show which plan each execution used
 * (pg_prepared_statements, PostgreSQL 14+). One PostgreSQL only: PGlite sends no named statements, and on Citus the
 * coordinator plans each router statement for its shard.
 */
let testDb: TestDatabase;
let single: Database | undefined;
let ctx: TestApp;
let headers: Record<string, string>;
let companyId: string;
let skus: string[] = [];

const onePostgres = () => Boolean(testDb?.url) && !onCitus();

beforeAll(async () => {
  testDb = await createTestDatabase();
  if (!onePostgres()) return;
  // one connection: every request's statement is prepared and counted on it
  single = createPgDatabase({ url: testDb.url!, poolMax: 1, statementTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
  ctx = await buildTestApp(single);
  ({ headers, companyId } = await shop(ctx));
  // large enough that probing by index beats scanning, as in any real catalogue (a tiny one plans alike either way)
  await generateCatalogue(single, companyId, { products: 1000, seed: 7 });
  await single.query(sql`UPDATE stock_levels SET on_hand = 1000000 WHERE company_id = ${companyId}`);
  await refreshInStockOfCompany(single, companyId); // a raw stock write: the in-stock flags follow, as every writer's do
  await single.query(sql`ANALYZE`);
  skus = (await single.query<{ sku: string }>(sql`SELECT sku FROM variants WHERE company_id = ${companyId} ORDER BY id LIMIT 30`)).map((r) => r.sku);
}, 120_000);
afterAll(async () => {
  await ctx?.app.close();
  await single?.close();
  await testDb?.drop();
});

/** What the page's stock must be, computed here from the stock rows: per variant at the ship-from location. */
async function expectedAvailable(productIds: string[]): Promise<Map<string, string>> {
  const rows = await single!.query<{ id: string; available: string }>(
    sql`SELECT v.id, greatest(coalesce(sum(s.on_hand - s.reserved) FILTER (WHERE l.ships_orders AND l.active), 0), 0)::numeric(14, 3)::text AS available
        FROM variants v
        LEFT JOIN stock_levels s ON s.company_id = v.company_id AND s.variant_id = v.id
        LEFT JOIN stock_locations l ON l.company_id = s.company_id AND l.id = s.location_id
        WHERE v.company_id = ${companyId} AND v.active AND v.product_id = ANY(${sql.param(productIds)}::text[])
        GROUP BY v.id`,
  );
  return new Map(rows.map((r) => [r.id, r.available]));
}

/**
 * The plans a hot statement used on this connection: under its own name (a request whose key is authenticated in full
 * first) and as `key_checked_<name>` (a known key, checked inside that statement: src/keys/key-check.ts).
 */
async function planCounts(name: string): Promise<{ generic: number; custom: number }> {
  const rows = await single!.query<{ generic: string; custom: string }>(
    sql`SELECT coalesce(sum(generic_plans), 0) AS generic, coalesce(sum(custom_plans), 0) AS custom
        FROM pg_prepared_statements WHERE name IN (${name}, ${'key_checked_' + name})`,
  );
  return { generic: Number(rows[0].generic), custom: Number(rows[0].custom) };
}

describe.skipIf(!process.env.TEST_DATABASE_URL && !process.env.DATABASE_URL)('hot statements are planned once per connection', () => {
  it('product detail: after the first five executions every request reuses the generic plan', async () => {
    if (!onePostgres()) return;
    await ctx.app.inject({ url: `${BASE}/catalog/products/${skus[0]}`, headers }); // the key, read in full once, is known from here
    const before = await planCounts('catalogue_stock_of');
    for (let i = 0; i < 20; i++) {
      const res = await ctx.app.inject({ url: `${BASE}/catalog/products/${skus[i % skus.length]}`, headers });
      expect(res.statusCode).toBe(200);
      const p = res.json<{ data: { product_id: string; variants: { variant_id: string; available: string }[] } }>().data;
      const expected = await expectedAvailable([p.product_id]);
      expect(p.variants.map((v) => v.available)).toEqual(p.variants.map((v) => expected.get(v.variant_id)));
    }
    const after = await planCounts('catalogue_stock_of');
    expect(after.generic + after.custom - before.generic - before.custom).toBe(20);
    // PostgreSQL tries at most five custom plans before it compares; a statement it keeps re-planning shows 20 here
    expect(after.custom - before.custom).toBeLessThanOrEqual(5);
    expect(after.generic - before.generic).toBeGreaterThanOrEqual(15);
  });

  it('browse pages of 1, 7, 20 and 30 products share that plan, and their stock is right', async () => {
    if (!onePostgres()) return;
    for (let i = 0; i < 5; i++) await ctx.app.inject({ url: `${BASE}/catalog/products?limit=${i + 1}`, headers }); // PostgreSQL's five tries
    const before = await planCounts('catalogue_stock_of');
    for (const limit of [1, 7, 20, 30, 20, 7, 1]) {
      const res = await ctx.app.inject({ url: `${BASE}/catalog/products?limit=${limit}`, headers });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ data: { product_id: string; variants: { variant_id: string; available: string }[] }[] }>();
      expect(body.data).toHaveLength(limit);
      const expected = await expectedAvailable(body.data.map((p) => p.product_id));
      for (const p of body.data) expect(p.variants.map((v) => v.available)).toEqual(p.variants.map((v) => expected.get(v.variant_id)));
    }
    const after = await planCounts('catalogue_stock_of');
    expect(after.generic - before.generic).toBe(7);
    expect(after.custom).toBe(before.custom);
  });

  it('POST /orders: the prelude of orders of one to three items reuses one plan', async () => {
    if (!onePostgres()) return;
    const place = async (i: number) => {
      const items = skus.slice(i % 20, (i % 20) + 1 + (i % 3)).map((sku) => ({ product_id: sku, quantity: 1 }));
      const res = await post(ctx, headers, orderBody({ items }));
      expect(res.status).toBe(201);
      expect(res.body.data.items).toHaveLength(items.length);
    };
    for (let i = 0; i < 5; i++) await place(i); // PostgreSQL's five tries
    const before = await planCounts('order_prelude');
    for (let i = 5; i < 20; i++) await place(i);
    const after = await planCounts('order_prelude');
    expect(after.generic - before.generic).toBe(15);
    expect(after.custom).toBe(before.custom);
  });
});
