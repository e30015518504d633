import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations } from '../helpers/catalogue-fixtures.js';
import { refreshInStockOfCompany, refreshListing } from '../../src/catalogue/catalogue.queries.js';
import { addBrand, addCategory, addPhoto, addSearchableProduct, setStock } from '../helpers/catalogue-setup.js';

const mediaDir = mkdtempSync(join(tmpdir(), 'catalogue-media-'));
const ctx = useTestApp({ MEDIA_DIR: mediaDir });
const url = (id: string) => `${ctx.config.BASE_PATH}/catalog/products/${encodeURIComponent(id)}`;

async function seed() {
  const co = await createCompanyWithKey(ctx.services);
  const cid = co.company.id;
  const loc = await addLocations(ctx.db, cid);
  const tee = await addSearchableProduct(ctx.db, cid, {
    sku: 'TEE',
    name: 'Graphic Tee',
    variants: [
      { sku: 'TEE-S', name: 'S', barcode: '8900000000011', attributes: { Size: 'S' }, selling_price: '499', mrp: '599', stock: { WH: '4', STORE: '6' } },
      { sku: 'TEE-M', name: 'M', barcode: '8900000000028', attributes: { Size: 'M' }, selling_price: '499', mrp: '599', stock: '1' },
      { sku: 'TEE-OLD', name: 'Old', barcode: '8900000000035', attributes: { Size: 'XXS' }, selling_price: '1', mrp: '1', active: false, stock: '50' },
    ],
  });
  // a single-variant product whose variant shares the product's SKU
  const soap = await addSearchableProduct(ctx.db, cid, { sku: 'SOAP', name: 'Neem Soap', variants: [{ sku: 'SOAP', selling_price: '45', stock: '10' }] });
  const off = await addSearchableProduct(ctx.db, cid, {
    sku: 'OFF',
    name: 'Retired',
    active: false,
    variants: [{ sku: 'OFF-1', barcode: '8900000000042', selling_price: '10', stock: '3' }],
  });
  mkdirSync(join(mediaDir, cid), { recursive: true });
  writeFileSync(join(mediaDir, cid, 'tee.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
  await addPhoto(ctx.db, cid, tee.productId, `${cid}/tee.png`, { alt: 'Graphic tee, front', position: 0 });
  await addPhoto(ctx.db, cid, tee.productId, `${cid}/tee-s.png`, { variantId: tee.variantIds['TEE-S'], position: 1 });
  await addPhoto(ctx.db, cid, tee.productId, `${cid}/tee-old.png`, { variantId: tee.variantIds['TEE-OLD'], position: 2 });
  return { ...co, loc, tee, soap, off };
}

describe('GET /catalog/products/{id}', () => {
  it('returns the product in full with images; a variant without a photo shows the product photo', async () => {
    const co = await seed();
    const res = await ctx.app.inject({ url: url(co.tee.productId), headers: co.headers });
    expect(res.statusCode).toBe(200);
    const p = res.json().data;
    expect(p).toMatchObject({
      product_id: co.tee.productId,
      sku: 'TEE',
      matched_variant_id: null,
      available: '5.000',
      available_total: '11.000',
      options: { Size: ['S', 'M'] },
      price_range: { min: '499.00', max: '499.00' },
    });
    expect(p.variants.map((v: { sku: string }) => v.sku)).toEqual(['TEE-S', 'TEE-M']);
    // images: product-level and the active variant's; the inactive variant's photo is left out
    expect(p.images).toHaveLength(2);
    expect(p.images[0]).toMatchObject({ alt: 'Graphic tee, front', variant_id: null });
    expect(p.images[1]).toMatchObject({ alt: null, variant_id: co.tee.variantIds['TEE-S'] });
    expect(p.image_url).toBe(p.images[0].url);
    expect(p.image_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:3000/media/${co.company.id}/tee\\.png\\?expires=\\d+&sig=[A-Za-z0-9_-]+$`));
    expect(p.variants[0].image_url).toBe(p.images[1].url);
    expect(p.variants[1].image_url).toBe(p.image_url);
    const img = await ctx.app.inject({ url: p.image_url.replace(/^http:\/\/[^/]+/, '') });
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
  });

  it.each([
    ['product SKU', 'TEE', null],
    ['variant SKU', 'TEE-M', 'TEE-M'],
    ['barcode', '8900000000011', 'TEE-S'],
  ])('finds a product by %s', async (_kind, id, matched) => {
    const co = await seed();
    const res = await ctx.app.inject({ url: url(id), headers: co.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.product_id).toBe(co.tee.productId);
    expect(res.json().data.matched_variant_id).toBe(matched ? co.tee.variantIds[matched] : null);
  });

  it('finds a product by variant id', async () => {
    const co = await seed();
    const res = await ctx.app.inject({ url: url(co.tee.variantIds['TEE-S']), headers: co.headers });
    expect(res.json().data).toMatchObject({ product_id: co.tee.productId, matched_variant_id: co.tee.variantIds['TEE-S'] });
  });

  it('a SKU shared by a product and its only variant names the variant', async () => {
    const co = await seed();
    const res = await ctx.app.inject({ url: url('SOAP'), headers: co.headers });
    expect(res.json().data).toMatchObject({ product_id: co.soap.productId, matched_variant_id: co.soap.variantIds.SOAP });
  });

  it.each([
    ['unknown id', () => 'NOPE'],
    ['lower-cased SKU (matching is exact)', () => 'tee-m'],
    ['inactive variant SKU', () => 'TEE-OLD'],
    ['inactive variant barcode', () => '8900000000035'],
    ['inactive product SKU', () => 'OFF'],
    ['inactive product variant barcode', () => '8900000000042'],
  ])('%s is 404 not_found', async (_kind, id) => {
    const co = await seed();
    const res = await ctx.app.inject({ url: url(id()), headers: co.headers });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });

  it('a product whose variants are all inactive is 404', async () => {
    const co = await seed();
    // raw writes, each followed by refreshListing as every writer does
    const write = async (statement: SQL) => {
      await ctx.db.query(statement);
      await refreshListing(ctx.db, co.company.id, [co.soap.productId]);
    };
    await write(sql`UPDATE variants SET active = false WHERE company_id = ${co.company.id} AND product_id = ${co.soap.productId}`);
    expect((await ctx.app.inject({ url: url(co.soap.productId), headers: co.headers })).statusCode).toBe(404);
    const listed = async () => (await ctx.app.inject({ url: `${ctx.config.BASE_PATH}/catalog/products?search=neem`, headers: co.headers })).json().total;
    expect(await listed()).toBe(0);
    // a variant made active again brings the product back (the listed flag follows every write)
    await write(sql`UPDATE variants SET active = true WHERE company_id = ${co.company.id} AND product_id = ${co.soap.productId}`);
    expect(await listed()).toBe(1);
    await write(sql`UPDATE products SET active = false WHERE company_id = ${co.company.id} AND id = ${co.soap.productId}`);
    expect(await listed()).toBe(0);
    expect((await ctx.app.inject({ url: url('SOAP'), headers: co.headers })).statusCode).toBe(404);
  });

  it("another company's product by id, SKU, variant id or barcode is 404", async () => {
    const a = await seed();
    const b = await createCompanyWithKey(ctx.services);
    for (const id of [a.tee.productId, 'TEE', 'TEE-S', a.tee.variantIds['TEE-S'], '8900000000011']) {
      const res = await ctx.app.inject({ url: url(id), headers: b.headers });
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('id over 64 characters is 400; 64 is accepted', async () => {
    const co = await seed();
    const long = await ctx.app.inject({ url: url('x'.repeat(65)), headers: co.headers });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.details[0].path).toBe('id');
    expect((await ctx.app.inject({ url: url('x'.repeat(64)), headers: co.headers })).statusCode).toBe(404);
  });
});

describe('availability arithmetic', () => {
  it('subtracts reservations, is never negative, and ignores inactive locations', async () => {
    const co = await seed();
    const cid = co.company.id;
    const s = co.tee.variantIds['TEE-S'];
    const m = co.tee.variantIds['TEE-M'];
    // S: WH 4 on hand, 1.5 reserved -> 2.5; STORE 6, 7 reserved -> -1 counts against the total
    await setStock(ctx.db, cid, s, co.loc.WH, '4', '1.5');
    await setStock(ctx.db, cid, s, co.loc.STORE, '6', '7');
    // M: over-reserved at WH: never negative
    await setStock(ctx.db, cid, m, co.loc.WH, '1', '3');
    let p = (await ctx.app.inject({ url: url('TEE'), headers: co.headers })).json().data;
    expect(p.variants[0]).toMatchObject({ available: '2.500', available_total: '1.500', in_stock: true });
    expect(p.variants[1]).toMatchObject({ available: '0.000', available_total: '0.000', in_stock: false });
    expect(p).toMatchObject({ available: '2.500', available_total: '1.500', in_stock: true });

    // fully reserved at the ship-from location: not orderable, and in_stock=true leaves the product out
    const inStock = async () =>
      (await ctx.app.inject({ url: `${ctx.config.BASE_PATH}/catalog/products?in_stock=true&search=graphic`, headers: co.headers })).json().total;
    expect(await inStock()).toBe(1);
    await setStock(ctx.db, cid, s, co.loc.WH, '4', '4');
    expect(await inStock()).toBe(0);
    expect((await ctx.app.inject({ url: url('TEE'), headers: co.headers })).json().data).toMatchObject({ available: '0.000', in_stock: false });
    await setStock(ctx.db, cid, s, co.loc.WH, '4', '1.5');

    // an inactive store no longer counts (raw location writes, each followed by the in-stock refresh, as the import does)
    await ctx.db.query(sql`UPDATE stock_locations SET active = false WHERE company_id = ${cid} AND id = ${co.loc.STORE}`);
    await refreshInStockOfCompany(ctx.db, cid);
    p = (await ctx.app.inject({ url: url('TEE'), headers: co.headers })).json().data;
    expect(p.variants[0]).toMatchObject({ available: '2.500', available_total: '2.500' });

    // an inactive ship-from location: nothing is orderable, the rest still counts in the total
    await ctx.db.query(sql`UPDATE stock_locations SET active = (id = ${co.loc.STORE}) WHERE company_id = ${cid}`);
    await refreshInStockOfCompany(ctx.db, cid);
    p = (await ctx.app.inject({ url: url('TEE'), headers: co.headers })).json().data;
    expect(p).toMatchObject({ available: '0.000', available_total: '0.000', in_stock: false });
    expect(p.variants[0]).toMatchObject({ available: '0.000', available_total: '0.000' });
    await setStock(ctx.db, cid, s, co.loc.STORE, '9.125', '0');
    p = (await ctx.app.inject({ url: url('TEE'), headers: co.headers })).json().data;
    expect(p.variants[0]).toMatchObject({ available: '0.000', available_total: '9.125', in_stock: false });
    const browse = (await ctx.app.inject({ url: `${ctx.config.BASE_PATH}/catalog/products?in_stock=true`, headers: co.headers })).json();
    expect(browse.total).toBe(0);
  });
});

describe('GET /catalog/categories', () => {
  it('lists categories with parent_id and direct product counts, and brands with counts', async () => {
    const co = await createCompanyWithKey(ctx.services);
    const cid = co.company.id;
    await addLocations(ctx.db, cid);
    const home = await addCategory(ctx.db, cid, 'Home', 'home');
    const kitchen = await addCategory(ctx.db, cid, 'Kitchen', 'kitchen', home);
    const brand = await addBrand(ctx.db, cid, 'Steel Co', 'steel-co');
    const empty = await addBrand(ctx.db, cid, 'Empty Brand', 'empty-brand');
    await addSearchableProduct(ctx.db, cid, { sku: 'K1', name: 'Kadai', category_id: kitchen, brand_id: brand, variants: [{ sku: 'K1', selling_price: '1' }] });
    await addSearchableProduct(ctx.db, cid, { sku: 'K2', name: 'Tawa', category_id: kitchen, brand_id: brand, variants: [{ sku: 'K2', selling_price: '1' }] });
    await addSearchableProduct(ctx.db, cid, {
      sku: 'K3',
      name: 'Old',
      category_id: kitchen,
      brand_id: brand,
      active: false,
      variants: [{ sku: 'K3', selling_price: '1' }],
    });
    const res = await ctx.app.inject({ url: `${ctx.config.BASE_PATH}/catalog/categories`, headers: co.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        categories: [
          { id: home, name: 'Home', slug: 'home', parent_id: null, product_count: 0 },
          { id: kitchen, name: 'Kitchen', slug: 'kitchen', parent_id: home, product_count: 2 },
        ],
        brands: [
          { id: empty, name: 'Empty Brand', slug: 'empty-brand', product_count: 0 },
          { id: brand, name: 'Steel Co', slug: 'steel-co', product_count: 2 },
        ],
      },
    });
    const other = await createCompanyWithKey(ctx.services);
    const res2 = await ctx.app.inject({ url: `${ctx.config.BASE_PATH}/catalog/categories`, headers: other.headers });
    expect(res2.json()).toEqual({ data: { categories: [], brands: [] } });
  });
});
