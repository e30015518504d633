import { sql, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { generateCatalogue } from '../../src/catalogue/catalogue.generate.js';
import { refreshListing } from '../../src/catalogue/catalogue.queries.js';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';

const ctx = useTestApp();

/** The browse total (from the counter) and the truth (count over the table) must agree. */
async function totals(companyId: string, key: string) {
  const res = await ctx.app.inject({ url: '/api/v1/commerce/catalog/products?limit=1', headers: { 'x-api-key': key } });
  expect(res.statusCode).toBe(200);
  const [{ n }] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM products WHERE company_id = ${companyId} AND listed`);
  return { browse: res.json().total as number, truth: n };
}

describe('unfiltered browse total (listed-product counter)', () => {
  it('stays exact through inserts, deactivation, variant changes and bulk generation', async () => {
    const { company, key } = await createCompanyWithKey(ctx.services);
    expect(await totals(company.id, key)).toEqual({ browse: 0, truth: 0 });
    await addLocations(ctx.db, company.id);
    const a = await addProduct(ctx.db, company.id, { sku: 'A', name: 'Alpha', variants: [{ sku: 'A-1', selling_price: '10.00', stock: '1' }] });
    await addProduct(ctx.db, company.id, {
      sku: 'B',
      name: 'Beta',
      variants: [
        { sku: 'B-1', selling_price: '10.00' },
        { sku: 'B-2', selling_price: '12.00' },
      ],
    });
    await addProduct(ctx.db, company.id, { sku: 'C', name: 'Gamma', active: false, variants: [{ sku: 'C-1', selling_price: '10.00' }] });
    expect(await totals(company.id, key)).toEqual({ browse: 2, truth: 2 });

    // Raw writes here, then refreshListing over the products they touched, as every writer does.
    const write = async (statement: SQL) => {
      const touched = (await ctx.db.query<{ product_id: string }>(statement)).map((r) => r.product_id);
      await refreshListing(ctx.db, company.id, touched);
    };
    // The product's only variant goes inactive: the product is no longer listed.
    await write(sql`UPDATE variants SET active = false WHERE company_id = ${company.id} AND id = ${a.variantIds['A-1']} RETURNING product_id`);
    expect(await totals(company.id, key)).toEqual({ browse: 1, truth: 1 });
    await write(sql`UPDATE variants SET active = true WHERE company_id = ${company.id} AND id = ${a.variantIds['A-1']} RETURNING product_id`);
    await write(sql`UPDATE products SET active = true WHERE company_id = ${company.id} AND sku = 'C' RETURNING id AS product_id`);
    expect(await totals(company.id, key)).toEqual({ browse: 3, truth: 3 });
    // Updates that change nothing listed, a refresh of unchanged products, and a statement over every row leave it exact.
    await write(sql`UPDATE products SET description = 'x' WHERE company_id = ${company.id} RETURNING id AS product_id`);
    await write(sql`UPDATE products SET active = NOT active WHERE company_id = ${company.id} AND sku IN ('A', 'B') RETURNING id AS product_id`);
    expect(await totals(company.id, key)).toEqual({ browse: 1, truth: 1 });
    await write(sql`UPDATE products SET active = active WHERE company_id = ${company.id} RETURNING id AS product_id`);
    expect(await totals(company.id, key)).toEqual({ browse: 1, truth: 1 });

    await generateCatalogue(ctx.db, company.id, { products: 250, batchSize: 100 });
    expect(await totals(company.id, key)).toEqual({ browse: 251, truth: 251 });
  });

  it('counts each company on its own, and a rolled-back write changes nothing', async () => {
    const one = await createCompanyWithKey(ctx.services);
    const two = await createCompanyWithKey(ctx.services);
    await addLocations(ctx.db, one.company.id);
    await addLocations(ctx.db, two.company.id);
    await addProduct(ctx.db, one.company.id, { sku: 'X', name: 'X', variants: [{ sku: 'X-1', selling_price: '1.00' }] });
    await expect(
      ctx.db.tx(async (tx) => {
        await addProduct(tx, two.company.id, { sku: 'Y', name: 'Y', variants: [{ sku: 'Y-1', selling_price: '1.00' }] });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await totals(one.company.id, one.key)).toEqual({ browse: 1, truth: 1 });
    expect(await totals(two.company.id, two.key)).toEqual({ browse: 0, truth: 0 });
  });
});
