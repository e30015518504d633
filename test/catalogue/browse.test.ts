import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations } from '../helpers/catalogue-fixtures.js';
import { addBrand, addCategory, addSearchableProduct, DECIMAL2, DECIMAL3 } from '../helpers/catalogue-setup.js';

const ctx = useTestApp();
const url = (q = '') => `${ctx.config.BASE_PATH}/catalog/products${q}`;

/** A small catalogue: a shirt with size/colour variants, rice by KG, a face wash, and hidden products. */
async function seedCompany() {
  const co = await createCompanyWithKey(ctx.services);
  const db = ctx.db;
  const cid = co.company.id;
  const loc = await addLocations(db, cid);
  const apparel = await addCategory(db, cid, 'Apparel', 'apparel');
  const men = await addCategory(db, cid, 'Men', 'men', apparel);
  const shirts = await addCategory(db, cid, 'Shirts', 'shirts', men);
  const grocery = await addCategory(db, cid, 'Grocery', 'grocery');
  const loom = await addBrand(db, cid, 'Urban Loom', 'urban-loom');
  const farm = await addBrand(db, cid, 'Farm Fresh', 'farm-fresh');
  const shirt = await addSearchableProduct(db, cid, {
    sku: 'SHIRT-001',
    name: 'Classic Cotton Shirt',
    description: 'Breathable everyday shirt',
    hsn_code: '6205',
    tax_rate: '12',
    category_id: shirts,
    brand_id: loom,
    variants: [
      {
        sku: 'SHIRT-001-RED-XL',
        name: 'Red / XL',
        barcode: '8901234567890',
        attributes: { Colour: 'Red', Size: 'XL' },
        selling_price: '799',
        mrp: '999',
        stock: { WH: '5', STORE: '2' },
      },
      { sku: 'SHIRT-001-RED-M', name: 'Red / M', attributes: { Colour: 'Red', Size: 'M' }, selling_price: '749.5', mrp: '999', stock: '0' },
      { sku: 'SHIRT-001-BLUE-XL', name: 'Blue / XL', attributes: { Colour: 'Blue', Size: 'XL' }, selling_price: '899', mrp: '999', stock: { STORE: '3' } },
      { sku: 'SHIRT-001-GRN-S', name: 'Green / S', attributes: { Colour: 'Green', Size: 'S' }, selling_price: '99', mrp: '999', active: false, stock: '100' },
    ],
  });
  const rice = await addSearchableProduct(db, cid, {
    sku: 'RICE-BASMATI',
    name: 'basmati Rice',
    unit: 'KG',
    tax_rate: '5',
    hsn_code: '1006',
    category_id: grocery,
    brand_id: farm,
    variants: [{ sku: 'RICE-BASMATI-LOOSE', name: 'Loose', selling_price: '120', mrp: '130', stock: '12.5' }],
  });
  const wash = await addSearchableProduct(db, cid, {
    sku: 'FW-ALOE',
    name: 'Aloe Face Wash',
    description: 'Gentle cleanser for oily skin, 100% soap_free',
    tax_rate: '18',
    variants: [{ sku: 'FW-ALOE-100', selling_price: '249', mrp: '299', stock: '0' }],
  });
  await addSearchableProduct(db, cid, {
    sku: 'HIDDEN',
    name: 'Aaa Hidden Product',
    active: false,
    variants: [{ sku: 'HIDDEN-1', selling_price: '1', stock: '9' }],
  });
  await addSearchableProduct(db, cid, {
    sku: 'GHOST',
    name: 'Aaa Ghost Product',
    variants: [{ sku: 'GHOST-1', selling_price: '1', active: false, stock: '9' }],
  });
  return { ...co, loc, ids: { apparel, men, shirts, grocery, loom, farm }, shirt, rice, wash };
}

describe('GET /catalog/products', () => {
  it('lists active products with variants alphabetically, every field in its spec type', async () => {
    const co = await seedCompany();
    const res = await ctx.app.inject({ url: url(), headers: co.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ count: 3, total: 3, limit: 20, offset: 0, has_more: false });
    expect(body.data.map((p: { name: string }) => p.name)).toEqual(['Aloe Face Wash', 'basmati Rice', 'Classic Cotton Shirt']);

    const shirt = body.data[2];
    expect(Object.keys(shirt).sort()).toEqual(
      [
        'product_id',
        'sku',
        'name',
        'description',
        'category',
        'brand',
        'unit',
        'hsn_code',
        'tax_rate',
        'currency',
        'price_range',
        'options',
        'available',
        'available_total',
        'in_stock',
        'image_url',
        'variants',
      ].sort(),
    );
    expect(shirt).toMatchObject({
      product_id: co.shirt.productId,
      sku: 'SHIRT-001',
      name: 'Classic Cotton Shirt',
      description: 'Breathable everyday shirt',
      category: { id: co.ids.shirts, name: 'Shirts', slug: 'shirts', parent: 'Men' },
      brand: { id: co.ids.loom, name: 'Urban Loom' },
      unit: 'PCS',
      hsn_code: '6205',
      tax_rate: '12.00',
      currency: 'INR',
      // the inactive Green/S variant (99.00) is not in the range
      price_range: { min: '749.50', max: '899.00' },
      options: { Colour: ['Red', 'Blue'], Size: ['XL', 'M'] },
      // ship-from: 5 (RED-XL); total: 5 + 2 + 3 (the inactive variant's 100 excluded)
      available: '5.000',
      available_total: '10.000',
      in_stock: true,
      image_url: null,
    });
    expect(shirt.variants).toHaveLength(3);
    const v = shirt.variants[0];
    expect(Object.keys(v).sort()).toEqual(
      ['variant_id', 'sku', 'barcode', 'name', 'attributes', 'selling_price', 'mrp', 'available', 'available_total', 'in_stock', 'image_url'].sort(),
    );
    expect(v).toEqual({
      variant_id: co.shirt.variantIds['SHIRT-001-RED-XL'],
      sku: 'SHIRT-001-RED-XL',
      barcode: '8901234567890',
      name: 'Red / XL',
      attributes: { Colour: 'Red', Size: 'XL' },
      selling_price: '799.00',
      mrp: '999.00',
      available: '5.000',
      available_total: '7.000',
      in_stock: true,
      image_url: null,
    });
    expect(shirt.variants[1]).toMatchObject({ sku: 'SHIRT-001-RED-M', barcode: null, available: '0.000', available_total: '0.000', in_stock: false });
    // stock only at the store: orderable nowhere, but counted in the total
    expect(shirt.variants[2]).toMatchObject({ sku: 'SHIRT-001-BLUE-XL', available: '0.000', available_total: '3.000', in_stock: false });

    const wash = body.data[0];
    expect(wash).toMatchObject({
      category: null,
      brand: null,
      hsn_code: null,
      options: {},
      in_stock: false,
      available: '0.000',
      price_range: { min: '249.00', max: '249.00' },
    });
    const rice = body.data[1];
    expect(rice).toMatchObject({ unit: 'KG', tax_rate: '5.00', available: '12.500', description: null });

    for (const p of body.data) {
      for (const value of [p.tax_rate, p.price_range.min, p.price_range.max]) expect(value).toMatch(DECIMAL2);
      expect(p.available).toMatch(DECIMAL3);
      expect(p.available_total).toMatch(DECIMAL3);
      for (const variant of p.variants) {
        expect(variant.selling_price).toMatch(DECIMAL2);
        expect(variant.mrp).toMatch(DECIMAL2);
        expect(variant.available).toMatch(DECIMAL3);
        expect(typeof variant.in_stock).toBe('boolean');
      }
    }
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=0x10', 'limit'],
    ['limit=1e1', 'limit'],
    ['limit=%2B5', 'limit'],
    ['offset=0x10', 'offset'],
    ['limit=1&limit=2', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=10001', 'offset'],
    ['offset=1e3', 'offset'],
    ['in_stock=yes', 'in_stock'],
    ['in_stock=1', 'in_stock'],
    ['in_stock=TRUE', 'in_stock'],
    [`search=${'a'.repeat(101)}`, 'search'],
    [`category=${'a'.repeat(81)}`, 'category'],
    [`brand=${'a'.repeat(81)}`, 'brand'],
  ])('?%s is 400 validation_failed naming %s', async (query, path) => {
    const co = await createCompanyWithKey(ctx.services);
    const res = await ctx.app.inject({ url: url(`?${query}`), headers: co.headers });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it.each([
    ['limit=1', { limit: 1, count: 1 }],
    ['limit=50', { limit: 50, count: 3 }],
    ['limit=%2020', { limit: 20 }],
    ['limit=%205', { limit: 5 }],
    // an empty integer parameter is not given, like an empty search: the default applies
    ['limit=', { limit: 20 }],
    ['offset=', { offset: 0 }],
    ['limit=%20&offset=%20', { limit: 20, offset: 0 }],
    ['offset=0', { offset: 0, count: 3 }],
    ['offset=10000', { offset: 10000, count: 0, total: 3, has_more: false }],
    [`search=${'a'.repeat(100)}`, { count: 0, total: 0 }],
    [`category=${'a'.repeat(80)}`, { count: 0, total: 0 }],
    [`brand=${'a'.repeat(80)}`, { count: 0, total: 0 }],
    ['search=', { count: 3 }],
    ['in_stock=false', { count: 3 }],
  ])('?%s is accepted at the edge', async (query, expected) => {
    const co = await seedCompany();
    const res = await ctx.app.inject({ url: url(`?${query}`), headers: co.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject(expected);
  });

  it('in_stock=true keeps only products orderable now from the ship-from location', async () => {
    const co = await seedCompany();
    const res = await ctx.app.inject({ url: url('?in_stock=true'), headers: co.headers });
    expect(res.json().data.map((p: { sku: string }) => p.sku)).toEqual(['RICE-BASMATI', 'SHIRT-001']);
    expect(res.json().total).toBe(2);
  });

  it('pages without repeats or gaps, with exact total and has_more', async () => {
    const co = await createCompanyWithKey(ctx.services);
    await addLocations(ctx.db, co.company.id);
    // duplicate names force the id tie-break
    for (let i = 0; i < 23; i++) {
      await addSearchableProduct(ctx.db, co.company.id, {
        sku: `P-${i}`,
        name: i % 3 === 0 ? 'Same Name' : `Item ${String(i).padStart(2, '0')}`,
        variants: [{ sku: `V-${i}`, selling_price: '10' }],
      });
    }
    const seen: string[] = [];
    for (let offset = 0; ; offset += 5) {
      const body = (await ctx.app.inject({ url: url(`?limit=5&offset=${offset}`), headers: co.headers })).json();
      expect(body.total).toBe(23);
      expect(body.count).toBe(body.data.length);
      seen.push(...body.data.map((p: { product_id: string }) => p.product_id));
      expect(body.has_more).toBe(offset + 5 < 23);
      if (!body.has_more) break;
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    const all = (await ctx.app.inject({ url: url('?limit=50'), headers: co.headers })).json();
    expect(all.data.map((p: { product_id: string }) => p.product_id)).toEqual(seen);
  });

  it.each([
    ['cotton', 'SHIRT-001'], // product name
    ['shirt-001', 'SHIRT-001'], // product SKU, case-insensitive
    ['breathable', 'SHIRT-001'], // description
    ['SHIRT-001-BLUE', 'SHIRT-001'], // variant SKU
    ['8901234567890', 'SHIRT-001'], // barcode
    ['blue / xl', 'SHIRT-001'], // variant name (two words, both present)
    ['XL', 'SHIRT-001'], // option value
    ['loose', 'RICE-BASMATI'], // variant name
    ['red shirt xl', 'SHIRT-001'], // every word somewhere
    ['BASMATI', 'RICE-BASMATI'],
    ['100%', 'FW-ALOE'], // LIKE metacharacters taken literally
    ['soap_free', 'FW-ALOE'],
  ])('search %j finds %s', async (search, sku) => {
    const co = await seedCompany();
    const res = await ctx.app.inject({ url: url(`?search=${encodeURIComponent(search)}`), headers: co.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((p: { sku: string }) => p.sku)).toEqual([sku]);
  });

  it.each(['red shirt xxl', 'green', 'hidden', 'ghost', 'soap%free', '10_%', 'shirt rice'])('search %j finds nothing', async (search) => {
    const co = await seedCompany();
    const res = await ctx.app.inject({ url: url(`?search=${encodeURIComponent(search)}`), headers: co.headers });
    expect(res.json()).toMatchObject({ data: [], count: 0, total: 0, has_more: false });
  });

  it('filters by category id, slug or name including sub-categories, and by brand id, slug or name', async () => {
    const co = await seedCompany();
    const skus = async (q: string) => (await ctx.app.inject({ url: url(q), headers: co.headers })).json().data.map((p: { sku: string }) => p.sku);
    expect(await skus('?category=apparel')).toEqual(['SHIRT-001']); // grandparent includes Shirts
    expect(await skus('?category=MEN')).toEqual(['SHIRT-001']);
    expect(await skus(`?category=${co.ids.shirts}`)).toEqual(['SHIRT-001']);
    expect(await skus('?category=Grocery')).toEqual(['RICE-BASMATI']);
    expect(await skus('?category=nope')).toEqual([]);
    expect(await skus('?brand=urban-loom')).toEqual(['SHIRT-001']);
    expect(await skus('?brand=farm%20fresh')).toEqual(['RICE-BASMATI']);
    expect(await skus(`?brand=${co.ids.farm}`)).toEqual(['RICE-BASMATI']);
    expect(await skus('?brand=nope')).toEqual([]);
    expect(await skus('?brand=urban-loom&category=grocery')).toEqual([]);
    expect(await skus('?category=apparel&search=red&in_stock=true')).toEqual(['SHIRT-001']);
  });

  it("never shows another company's products", async () => {
    const a = await seedCompany();
    const b = await createCompanyWithKey(ctx.services);
    const res = await ctx.app.inject({ url: url(), headers: b.headers });
    expect(res.json()).toMatchObject({ data: [], total: 0 });
    const filtered = await ctx.app.inject({ url: url(`?category=${a.ids.shirts}&brand=${a.ids.loom}&search=shirt`), headers: b.headers });
    expect(filtered.json()).toMatchObject({ data: [], total: 0 });
  });

  it('needs a key', async () => {
    expect((await ctx.app.inject({ url: url() })).statusCode).toBe(401);
  });
});
