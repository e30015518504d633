import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { loadCatalogue } from '../../src/catalogue/read-model.queries.js';
import { ModelBuilder, resolveRef, type CatalogueModel } from '../../src/catalogue/read-model.js';

/**
 * The read model is read in chunks by key (so a large catalogue's rows never sit in memory beside its whole
 * model). Whatever the chunk size, the model is the same: products in browse order, every identifier resolving as
 * before, unlisted products and inactive variants refused.
 */
let testDb: TestDatabase;
let ctx: TestApp;
let companyId: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  ctx = await buildTestApp(testDb.db);
  companyId = (await createCompanyWithKey(ctx.services)).company.id;
  await addLocations(ctx.db, companyId);
  // names that tie (browse order falls back to the id), an unlisted product, inactive variants, barcodes
  for (let i = 0; i < 7; i++) {
    await addProduct(ctx.db, companyId, {
      sku: `P${i}`,
      name: i % 3 === 0 ? 'Same Name' : `Product ${String.fromCharCode(90 - i)}`,
      active: i !== 4,
      variants: [
        { sku: `P${i}-A`, barcode: `89000000000${i}0`, attributes: { Size: 'S' }, selling_price: `${100 + i}.00`, stock: '3' },
        { sku: `P${i}-B`, attributes: { Size: 'M' }, selling_price: `${200 + i}.00`, active: i !== 2, stock: '0' },
        { sku: `P${i}-C`, selling_price: `${50 + i}.50` },
      ],
    });
  }
});
afterAll(async () => {
  await ctx?.app.close();
  await testDb?.drop();
});

async function build(chunkRows?: number): Promise<CatalogueModel> {
  const builder = new ModelBuilder();
  await loadCatalogue(testDb.db, companyId, builder, chunkRows);
  return builder.finish();
}

/** What a model answers, without its object graph's cycles (a variant points at its product). */
const answers = (m: CatalogueModel) => ({
  version: m.version,
  products: m.products.map((p) => ({ ...p, variants: p.variants.map(({ product, ...v }) => ({ ...v, of: product.id })) })),
  refs: [...m.refs.keys()].sort().map((k) => [k, resolveRef(m, k)?.product.id ?? null, resolveRef(m, k)?.variantId ?? null]),
  categories: m.categories,
  brands: m.brands,
});

describe('the read model read in chunks', () => {
  it.each([1, 2, 3, 5, 20])('with %i rows per chunk equals the model read in one', async (chunkRows) => {
    const whole = answers(await build(1_000));
    expect(answers(await build(chunkRows))).toEqual(whole);
  });

  it('holds the listed products in the database’s browse order, and refuses the unlisted and inactive', async () => {
    const model = await build(2);
    const order = await testDb.db.query<{ id: string }>(sql`SELECT id FROM products WHERE company_id = ${companyId} AND listed ORDER BY sort_name, id`);
    expect(model.products.map((p) => p.id)).toEqual(order.map((r) => r.id));
    expect(model.products).toHaveLength(6);
    expect(resolveRef(model, 'P4')).toBeUndefined(); // unlisted product
    expect(resolveRef(model, 'P4-A')).toBeUndefined(); // its variant
    expect(resolveRef(model, 'P2-B')).toBeUndefined(); // inactive variant
    expect(resolveRef(model, '8900000000010')).toMatchObject({ variantId: expect.stringMatching(/^var_/) });
    expect(model.refs.has('P4')).toBe(true); // known, as refused: not looked for elsewhere
  });
});
