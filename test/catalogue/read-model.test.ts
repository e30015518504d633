import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { recordingDatabase, requestStatements } from '../helpers/round-trips.js';
import { BASE, orderBody, shop } from '../helpers/orders.js';
import { refreshListing } from '../../src/catalogue/catalogue.queries.js';

/**
 * Two app instances on one database, each with its own catalogue read model: a change made through one
 * shows on the other's next request, and stock is live on both.
 */
let testDb: TestDatabase;
let a: TestApp;
let b: TestApp;
let recorder: ReturnType<typeof recordingDatabase>;
const work = mkdtempSync(join(tmpdir(), 'read-model-'));

beforeAll(async () => {
  testDb = await createTestDatabase();
  recorder = recordingDatabase(testDb.db);
  a = await buildTestApp(testDb.db);
  b = await buildTestApp(recorder);
});
afterAll(async () => {
  await a?.app.close();
  await b?.app.close();
  await testDb?.drop();
});

const products = () => [
  { sku: 'TEE', name: 'Cotton Tee', variants: [{ sku: 'TEE-M', name: 'M', selling_price: '299.00', stock: '5' }] },
  { sku: 'MUG', name: 'Steel Mug', variants: [{ sku: 'MUG-1', name: 'One', selling_price: '149.00', stock: '1' }] },
];

const get = async (app: TestApp, headers: Record<string, string>, path: string) => {
  const res = await app.app.inject({ url: `${BASE}${path}`, headers });
  return { status: res.statusCode, body: res.json() };
};

const catalogueFile = (name: string, active = true) => ({
  format: 'commerce-catalogue/1',
  locations: [{ code: 'WH', name: 'Warehouse', kind: 'warehouse', ships_orders: true }],
  categories: [{ slug: 'tees', name: 'Tees' }],
  brands: [],
  products: [
    {
      sku: 'TEE',
      name,
      tax_rate: '5',
      category: 'tees',
      active,
      variants: [{ sku: 'TEE-M', attributes: { Size: 'M' }, selling_price: '349', stock: { WH: '5' } }],
    },
  ],
});

describe('catalogue read model, two instances on one database', () => {
  it("an import through one instance shows in the other's next browse, detail and categories", async () => {
    const s = await shop(a, products());
    expect((await get(b, s.headers, '/catalog/products/TEE')).body.data.name).toBe('Cotton Tee');
    expect((await get(b, s.headers, '/catalog/categories')).body.data.categories).toEqual([]);
    await a.services.catalogueImport.importCatalogue(s.companyId, { kind: 'cli', name: 'test' }, catalogueFile('Organic Tee'), { baseDir: work });
    const detail = await get(b, s.headers, '/catalog/products/TEE-M');
    expect(detail.body.data).toMatchObject({ name: 'Organic Tee', price_range: { min: '349.00', max: '349.00' }, category: { slug: 'tees' } });
    const page = await get(b, s.headers, '/catalog/products?category=tees');
    expect(page.body.data.map((p: { sku: string }) => p.sku)).toEqual(['TEE']);
    expect((await get(b, s.headers, '/catalog/categories')).body.data.categories).toMatchObject([{ slug: 'tees', product_count: 1 }]);
  });

  it("an order's reservation through one instance shows in the other's very next browse, detail and in_stock=true", async () => {
    const s = await shop(a, products());
    const before = await get(b, s.headers, '/catalog/products');
    expect(before.body.data.find((p: { sku: string }) => p.sku === 'MUG')).toMatchObject({ available: '1.000', in_stock: true });
    expect((await get(b, s.headers, '/catalog/products?in_stock=true')).body.total).toBe(2);
    const placed = await a.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: s.headers,
      payload: orderBody({ items: [{ product_id: 'MUG-1', quantity: 1 }] }),
    });
    expect(placed.statusCode).toBe(201);
    const after = await get(b, s.headers, '/catalog/products');
    expect(after.body.data.find((p: { sku: string }) => p.sku === 'MUG')).toMatchObject({ available: '0.000', in_stock: false });
    expect((await get(b, s.headers, '/catalog/products/MUG-1')).body.data.variants[0]).toMatchObject({ available: '0.000', in_stock: false });
    const inStock = await get(b, s.headers, '/catalog/products?in_stock=true');
    expect(inStock.body).toMatchObject({ total: 1, data: [{ sku: 'TEE' }] });
  });

  it('a product deactivated through one instance is a 404 on the other, and gone from its pages', async () => {
    const s = await shop(a, products());
    expect((await get(b, s.headers, '/catalog/products/TEE')).status).toBe(200);
    await a.services.catalogueImport.importCatalogue(s.companyId, { kind: 'cli', name: 'test' }, catalogueFile('Cotton Tee', false), { baseDir: work });
    for (const ref of ['TEE', 'TEE-M']) expect((await get(b, s.headers, `/catalog/products/${ref}`)).status, ref).toBe(404);
    expect((await get(b, s.headers, '/catalog/products')).body).toMatchObject({ total: 1, data: [{ sku: 'MUG' }] });
    // a raw write followed by refresh_listing, as every writer does, moves the version too
    const [{ id }] = await testDb.db.query<{ id: string }>(
      sql`UPDATE products SET name = 'Big Mug' WHERE company_id = ${s.companyId} AND sku = 'MUG' RETURNING id`,
    );
    await refreshListing(testDb.db, s.companyId, [id]);
    expect((await get(b, s.headers, '/catalog/products/MUG')).body.data.name).toBe('Big Mug');
  });

  it('ten parallel first requests share one build', async () => {
    const s = await shop(a, products());
    const builds = b.services.catalogueCache.stats().builds;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => get(b, s.headers, i % 2 ? '/catalog/products' : '/catalog/products/TEE')));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(b.services.catalogueCache.stats().builds - builds).toBe(1);
  });

  it('companies are kept apart: the same SKUs, each company sees its own', async () => {
    const one = await shop(a, products());
    const two = await shop(a, [{ sku: 'TEE', name: 'Linen Tee', variants: [{ sku: 'TEE-M', name: 'M', selling_price: '999.00', stock: '0' }] }]);
    expect((await get(b, one.headers, '/catalog/products/TEE-M')).body.data).toMatchObject({ name: 'Cotton Tee', in_stock: true });
    expect((await get(b, two.headers, '/catalog/products/TEE-M')).body.data).toMatchObject({ name: 'Linen Tee', in_stock: false });
    expect((await get(b, two.headers, '/catalog/products/MUG')).status).toBe(404);
    expect((await get(b, two.headers, '/catalog/products')).body.total).toBe(1);
  });

  it('browse, detail and categories are each one statement, the key checked in it, once the model is built and the key known', async () => {
    const s = await shop(a, products());
    await get(b, s.headers, '/catalog/products'); // builds the model
    for (const path of [
      '/catalog/products',
      '/catalog/products?offset=1&limit=1',
      '/catalog/products/TEE-M',
      '/catalog/products/NOPE',
      '/catalog/categories',
      '/catalog/products?search=mug', // the word's first search: the database's index, which also returns its matches
      '/catalog/products?search=mug', // then the model's word cache: the statement reads only the version and stock
    ]) {
      recorder.statements.length = 0;
      const res = await get(b, s.headers, path);
      expect([200, 404], path).toContain(res.status);
      expect(requestStatements(recorder.statements), path).toHaveLength(1);
      expect(requestStatements(recorder.statements)[0], path).toContain('AS key_ok');
    }
    expect(requestStatements(recorder.statements)[0]).not.toContain('LIKE');
  });

  it('a search word the model has cached follows a catalogue change made through the other instance', async () => {
    const s = await shop(a, products());
    const search = async (word: string) => (await get(b, s.headers, `/catalog/products?search=${word}`)).body;
    expect((await search('organic')).total).toBe(0);
    expect((await search('organic')).total).toBe(0); // cached: no product has the word
    expect((await search('cotton')).data.map((p: { sku: string }) => p.sku)).toEqual(['TEE']);
    expect((await search('cotton')).total).toBe(1);
    await a.services.catalogueImport.importCatalogue(s.companyId, { kind: 'cli', name: 'test' }, catalogueFile('Organic Tee'), { baseDir: work });
    expect((await search('organic')).data.map((p: { sku: string }) => p.sku)).toEqual(['TEE']);
    expect((await search('cotton')).total).toBe(0);
    expect((await search('organic')).total).toBe(1);
  });
});

describe('catalogue read model: memory cap', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await buildTestApp(testDb.db, { CATALOGUE_CACHE_MB: '0.002' });
  });
  afterAll(async () => {
    await small?.app.close();
  });

  it('past the cap the least recently used company leaves, and is rebuilt when asked again', async () => {
    const one = await shop(a, products());
    const two = await shop(a, products());
    const cache = small.services.catalogueCache;
    const builds = cache.stats().builds;
    expect((await get(small, one.headers, '/catalog/products')).body.total).toBe(2);
    expect((await get(small, one.headers, '/catalog/products')).body.total).toBe(2);
    expect(cache.stats().builds - builds).toBe(1);
    expect((await get(small, two.headers, '/catalog/products')).body.total).toBe(2);
    const evictions = cache.stats().evictions;
    expect(cache.stats()).toMatchObject({ builds: builds + 2, companies: 1 });
    expect(cache.stats().bytes).toBeLessThanOrEqual(0.002 * 1024 * 1024 * 2);
    expect((await get(small, one.headers, '/catalog/products')).body.total).toBe(2);
    expect(cache.stats().builds - builds).toBe(3);
    expect(cache.stats().evictions - evictions).toBe(1); // the second company left for the first
  });
});
