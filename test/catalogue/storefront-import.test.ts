import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { orderBody } from '../helpers/orders.js';
import { runAdmin } from '../../src/cli/admin.js';
import { createCatalogueImportService } from '../../src/catalogue/import/index.js';
import { DEFAULT_PHOTO_FETCH, fetchPhotos } from '../../src/catalogue/import/photo-fetch.js';
import { AppError, type FieldIssue } from '../../src/contract/errors.js';

/**
 * A seller's Shopify or WooCommerce product export in one command. The fixtures follow the exports'
 * documented column sets; photos are served by a local server (IMPORT_PHOTO_ALLOW_LOCAL, as a test setting).
 */
const mediaDir = mkdtempSync(join(tmpdir(), 'storefront-media-'));
const ctx = useTestApp({ MEDIA_DIR: mediaDir, IMPORT_PHOTO_ALLOW_LOCAL: 'true' });
const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const taxMap = fixture('gst-map.csv');

/** A tiny valid PNG per name, so each photo has its own content (and its own content-addressed file). */
const png = (name: string) => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(name)]);
let photos: Server;
let origin = '';
const served: string[] = [];
beforeAll(async () => {
  photos = createServer((req, res) => {
    served.push(req.url ?? '');
    const name = (req.url ?? '').slice(1);
    if (name === 'page.png') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    if (name === 'moved.png') return res.writeHead(302, { location: '/kurta.png' }).end();
    if (name === 'big.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64 * 1024));
    if (name === 'slow.png') return setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png(name)), 1_500);
    if (name.startsWith('missing')) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(png(name));
  });
  await new Promise<void>((r) => photos.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(photos.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => photos.close(() => r())));

const withPhotos = (text: string) => text.replaceAll('http://PHOTOS', origin);
const shopify = () => withPhotos(fixture('shopify-products.csv'));
const woo = () => withPhotos(fixture('woocommerce-products.csv'));

async function company() {
  return createCompanyWithKey(ctx.services);
}

/** The export without photo file names (content hashes), with each photo's alt kept. */
async function exported(companyId: string) {
  const { file } = await ctx.services.catalogueImport.exportCatalogue(companyId);
  const strip = (ph: { file: string; alt: string | null }[]) => ph.map((p) => ({ file: p.file.replace(/[0-9a-f]{24}/, '<hash>'), alt: p.alt }));
  return {
    ...file,
    products: file.products.map((p) => ({ ...p, photos: strip(p.photos), variants: p.variants.map((v) => ({ ...v, photos: strip(v.photos) })) })),
  };
}

const counts = async (cid: string) =>
  (
    await ctx.db.query<Record<string, number>>(sql`SELECT
      (SELECT count(*)::int FROM products WHERE company_id = ${cid}) AS products,
      (SELECT count(*)::int FROM variants WHERE company_id = ${cid}) AS variants,
      (SELECT count(*)::int FROM categories WHERE company_id = ${cid}) AS categories,
      (SELECT count(*)::int FROM product_photos WHERE company_id = ${cid}) AS photos,
      (SELECT count(*)::int FROM stock_levels WHERE company_id = ${cid}) AS stock`)
  )[0];

async function problemsOf(p: Promise<unknown>): Promise<FieldIssue[]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return (err as AppError).details as FieldIssue[];
}

const PHOTO = { file: 'photos/<hash>.png' };

describe('Shopify product export', () => {
  it('imports products, options as variants, prices, stock, categories, vendor and photos; exported back as our JSON', async () => {
    const co = await company();
    const result = await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, shopify(), { baseDir: '.', taxMap });
    expect(result.format).toBe('shopify');
    expect(result.summary).toMatchObject({ products: 4, variants: 6, brands: 3, locations: 1 });
    const file = await exported(co.company.id);
    expect(file.locations).toEqual([{ code: 'MAIN', name: 'Main warehouse', kind: 'warehouse', active: true, ships_orders: true }]);
    expect(file.brands.map((b) => b.name).sort()).toEqual(['Annapurna Farms', 'Desi Threads', 'Moradabad Metalcraft']);
    // category paths as nested categories, slugs from the whole path
    expect(file.categories).toEqual(
      expect.arrayContaining([
        { slug: 'apparel-and-accessories', name: 'Apparel & Accessories', parent: null },
        { slug: 'apparel-and-accessories-clothing', name: 'Clothing', parent: 'apparel-and-accessories' },
        { slug: 'apparel-and-accessories-clothing-kurtas', name: 'Kurtas', parent: 'apparel-and-accessories-clothing' },
        {
          slug: 'food-beverages-and-tobacco-food-items-grains-rice-and-cereal',
          name: 'Grains, Rice & Cereal',
          parent: 'food-beverages-and-tobacco-food-items',
        },
      ]),
    );
    expect(file.products).toEqual([
      {
        sku: 'brass-urli',
        name: 'Handcrafted Brass Urli',
        description: 'Brass urli for flowers & floating diyas.',
        unit: 'PCS',
        hsn_code: '7418',
        tax_rate: '12.00',
        active: true,
        category: 'home-and-garden-decor-decorative-bowls',
        brand: 'moradabad-metalcraft',
        photos: [{ ...PHOTO, alt: 'Brass urli' }],
        variants: [
          {
            sku: 'URLI-12',
            barcode: '8901000000024',
            name: 'Handcrafted Brass Urli',
            attributes: {},
            selling_price: '12499.00',
            mrp: '14999.00',
            active: true,
            photos: [],
            stock: { MAIN: '3.000' },
          },
        ],
      },
      {
        sku: 'cotton-kurta',
        name: 'Cotton Kurta',
        description: 'Hand block printed cotton kurta.\n\n * हाथ से छपा हुआ\n * Machine wash',
        unit: 'PCS',
        hsn_code: '6211',
        tax_rate: '5.00',
        active: true,
        category: 'apparel-and-accessories-clothing-kurtas',
        brand: 'desi-threads',
        photos: [
          { ...PHOTO, alt: 'Kurta front' },
          { ...PHOTO, alt: 'Kurta back' },
        ],
        variants: [
          {
            sku: 'DT-KURTA-RED-M',
            barcode: '8901000000017',
            name: 'Red / M',
            attributes: { Colour: 'Red', Size: 'M' },
            selling_price: '899.00',
            mrp: '1299.00',
            active: true,
            photos: [{ ...PHOTO, alt: null }],
            stock: { MAIN: '10.000' },
          },
          {
            sku: 'DT-KURTA-RED-L',
            barcode: null,
            name: 'Red / L',
            attributes: { Colour: 'Red', Size: 'L' },
            selling_price: '899.00',
            mrp: '1299.00',
            active: true,
            photos: [{ ...PHOTO, alt: null }],
            stock: { MAIN: '4.000' },
          },
          {
            sku: 'DT-KURTA-BLU-M',
            barcode: null,
            name: 'Blue / M',
            attributes: { Colour: 'Blue', Size: 'M' },
            selling_price: '949.50',
            mrp: '1299.00',
            active: true,
            photos: [{ ...PHOTO, alt: null }],
            stock: { MAIN: '0.000' },
          },
        ],
      },
      {
        sku: 'gift-wrap',
        name: 'Festive Gift Wrap',
        description: null,
        unit: 'PCS',
        hsn_code: null,
        tax_rate: '18.00',
        active: false,
        category: 'gift-wrap',
        brand: 'desi-threads',
        photos: [],
        variants: [
          {
            sku: 'GIFT-WRAP',
            barcode: null,
            name: 'Festive Gift Wrap',
            attributes: {},
            selling_price: '49.00',
            mrp: '49.00',
            active: false,
            photos: [],
            stock: { MAIN: '0.000' },
          },
        ],
      },
      {
        sku: 'toor-dal',
        name: 'तूर दाल (Toor Dal)',
        description: 'Unpolished toor dal from Latur.',
        unit: 'PCS',
        hsn_code: '0713',
        tax_rate: '0.00',
        active: true,
        category: 'food-beverages-and-tobacco-food-items-grains-rice-and-cereal',
        brand: 'annapurna-farms',
        photos: [{ ...PHOTO, alt: null }],
        variants: [
          {
            sku: 'toor-dal-default',
            barcode: null,
            name: 'तूर दाल (Toor Dal)',
            attributes: {},
            selling_price: '165.00',
            mrp: '165.00',
            active: true,
            photos: [],
            stock: { MAIN: '92.000' },
          },
        ],
      },
    ]);
    // one image shared by two variants is fetched once and stored once
    const red = await ctx.db.query<{ n: number }>(sql`SELECT count(DISTINCT path)::int AS n FROM product_photos ph
      JOIN variants v ON v.company_id = ph.company_id AND v.id = ph.variant_id WHERE ph.company_id = ${co.company.id} AND v.sku LIKE 'DT-KURTA-RED-%'`);
    expect(red[0].n).toBe(1);
    expect(result.notes).toEqual([
      '1 variant(s) had no Variant SKU: each was given <handle>-<option values> (orders send SKUs)',
      '1 variant(s) had a negative Variant Inventory Qty (oversold in Shopify): set to 0',
      '1 product(s) have no HSN code (give --hsn or a mapping file; invoices need it): gift-wrap',
    ]);
  });

  it('importing the same export twice changes nothing; a messy copy (BOM, Windows line ends) reads the same', async () => {
    const co = await company();
    await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, shopify(), { baseDir: '.', taxMap });
    const once = await exported(co.company.id);
    const before = await counts(co.company.id);
    await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, shopify(), { baseDir: '.', taxMap });
    expect(await counts(co.company.id)).toEqual(before);
    expect(await exported(co.company.id)).toEqual(once);

    const messy = `\uFEFF${shopify().replace(/\r?\n/g, '\r\n')}`;
    const other = await company();
    const r = await ctx.services.catalogueImport.importStorefront(other.company.id, { kind: 'cli', name: 'test' }, messy, { baseDir: '.', taxMap });
    expect(r.format).toBe('shopify');
    expect(await exported(other.company.id)).toEqual(once);
  });

  it('an order against an imported variant reserves its stock (the import is a real catalogue)', async () => {
    const co = await company();
    await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, shopify(), { baseDir: '.', taxMap });
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${ctx.config.BASE_PATH}/orders`,
      headers: { 'x-api-key': co.key },
      payload: orderBody({ items: [{ product_id: 'DT-KURTA-RED-M', quantity: 2 }] }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.amount).toBe('1798.00');
    expect((await exported(co.company.id)).products[1].variants[0].stock).toEqual({ MAIN: '10.000' }); // on hand; 2 now reserved
  });
});

describe('WooCommerce product export', () => {
  it('imports simple and variable products with their variations; external products are left out', async () => {
    const co = await company();
    const result = await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, woo(), { baseDir: '.', taxMap });
    expect(result.format).toBe('woocommerce');
    const file = await exported(co.company.id);
    expect(file.brands).toEqual([{ slug: 'bagru-prints', name: 'Bagru Prints' }]);
    expect(file.products).toEqual([
      {
        sku: 'CO-OIL',
        name: 'Cold Pressed Coconut Oil',
        description: 'Cold pressed.',
        unit: 'PCS',
        hsn_code: '1513',
        tax_rate: '5.00',
        active: false,
        category: 'grocery-oils',
        brand: null,
        photos: [{ ...PHOTO, alt: null }],
        variants: [
          {
            sku: 'CO-OIL',
            barcode: null,
            name: 'Cold Pressed Coconut Oil',
            attributes: {},
            selling_price: '399.00',
            mrp: '399.00',
            active: false,
            photos: [],
            stock: {},
          },
        ],
      },
      {
        sku: 'KOL-CH',
        name: 'Kolhapuri Chappal',
        description: 'Handmade leather chappal',
        unit: 'PCS',
        hsn_code: '6403',
        tax_rate: '5.00',
        active: true,
        category: 'footwear',
        brand: null,
        photos: [{ ...PHOTO, alt: null }],
        variants: [
          {
            sku: 'KOL-CH',
            barcode: '8901234500012',
            name: 'Leather',
            attributes: { Material: 'Leather' },
            selling_price: '1499.00',
            mrp: '1499.00',
            active: true,
            photos: [],
            stock: { MAIN: '12.000' },
          },
        ],
      },
      {
        sku: 'SAREE-BP',
        name: 'Block Print Saree',
        description: 'Mul cotton saree, hand printed in Bagru.\n\nகைத்தறி புடவை',
        unit: 'PCS',
        hsn_code: '5208',
        tax_rate: '5.00',
        active: true,
        category: 'clothing-sarees',
        brand: 'bagru-prints',
        photos: [
          { ...PHOTO, alt: null },
          { ...PHOTO, alt: null },
        ],
        variants: [
          {
            sku: 'SAREE-BP-IND',
            barcode: null,
            name: 'Indigo',
            attributes: { Colour: 'Indigo' },
            selling_price: '2499.00',
            mrp: '2999.00',
            active: true,
            photos: [{ ...PHOTO, alt: null }],
            stock: { MAIN: '5.000' },
          },
          {
            sku: 'SAREE-BP-MAD',
            barcode: null,
            name: 'Madder',
            attributes: { Colour: 'Madder' },
            selling_price: '2999.00',
            mrp: '2999.00',
            active: true,
            photos: [],
            stock: { MAIN: '0.000' },
          },
        ],
      },
    ]);
    expect(result.notes).toEqual([
      "1 grouped or external product(s) left out (not sold from the seller's stock)",
      '1 variant(s) have no Stock (not managed in WooCommerce): they have no stock until it is set (catalog stock)',
    ]);
    // importing it again changes nothing
    const before = await counts(co.company.id);
    await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, woo(), { baseDir: '.', taxMap });
    expect(await counts(co.company.id)).toEqual(before);
    expect(await exported(co.company.id)).toEqual(file);
  });

  it("stock goes to the company's location that ships orders, or to --location", async () => {
    const co = await company();
    await ctx.services.catalogueImport.importCatalogue(
      co.company.id,
      { kind: 'cli', name: 'test' },
      { locations: [{ code: 'BLR-WH', name: 'Bengaluru', ships_orders: true }], products: [] },
      { baseDir: '.' },
    );
    await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, woo(), { baseDir: '.', taxMap });
    expect((await exported(co.company.id)).products.find((p) => p.sku === 'KOL-CH')?.variants[0].stock).toEqual({ 'BLR-WH': '12.000' });
    const other = await company();
    const problems = await problemsOf(
      ctx.services.catalogueImport.importStorefront(other.company.id, { kind: 'cli', name: 'test' }, woo(), { baseDir: '.', taxMap, location: 'NOPE' }),
    );
    expect(problems[0]).toEqual({ path: 'line 4, column Stock', message: 'no stock location with code "NOPE" in the file or the catalogue' });
  });
});

describe('problems are told by line and column, and nothing is written', () => {
  const shopifyLines = () => shopify().split('\n');

  it('prices, quantities and GST rates the export cannot give', async () => {
    const co = await company();
    const lines = shopifyLines();
    // line 10 is the urli (the kurta's first row spans lines 2-6): a price typed wrong and a quantity that is none
    lines[9] = lines[9].replace('"12,499.00"', '"12,49,9.00"').replace(',shopify,3,', ',shopify,three,');
    const problems = await problemsOf(
      ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, lines.join('\n'), { baseDir: '.' }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'line 10, column Variant Price', message: '"12,49,9.00" is not a price' },
        { path: 'line 10, column Variant Inventory Qty', message: '"three" is not a quantity' },
        // no --tax-rate and no mapping: every product is named
        {
          path: 'line 2, column Type',
          message: 'no GST rate for "Cotton Kurta" (Apparel & Accessories > Clothing > Kurtas): give --tax-rate or a mapping file',
        },
        { path: 'line 11, column Type', message: 'no GST rate for "Festive Gift Wrap" (Gift Wrap): give --tax-rate or a mapping file' },
      ]),
    );
    expect(problems).toHaveLength(6);
    expect(await counts(co.company.id)).toMatchObject({ products: 0, variants: 0, categories: 0, photos: 0 });
  });

  it("the import's own checks (a SKU owned by another product, a price above MRP) are mapped back to the export's cells", async () => {
    const co = await company();
    await ctx.services.catalogueImport.importCatalogue(
      co.company.id,
      { kind: 'cli', name: 'test' },
      { products: [{ sku: 'OTHER', name: 'Other', tax_rate: '5', variants: [{ sku: 'URLI-12', selling_price: '10' }] }] },
      { baseDir: '.' },
    );
    const problems = await problemsOf(
      ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, shopify(), { baseDir: '.', taxRate: '5' }),
    );
    expect(problems).toEqual([{ path: 'line 10, column Variant SKU', message: '"URLI-12" is a variant of product "OTHER" in the catalogue' }]);
    expect(await counts(co.company.id)).toMatchObject({ products: 1, variants: 1 });
  });

  it('a file that is neither export is refused with the columns each needs; a variation without its parent is named', async () => {
    const co = await company();
    expect(
      await problemsOf(ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, 'sku,name\nA,B\n', { baseDir: '.' })),
    ).toEqual([
      {
        path: 'line 1',
        message: 'not a Shopify export (header with Handle, Title, Variant Price) nor a WooCommerce export (ID, Type, SKU, Name, Regular price)',
      },
    ]);
    const orphan = woo().replace('id:101', 'id:999');
    expect(
      await problemsOf(ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, orphan, { baseDir: '.', taxMap })),
    ).toEqual([{ path: 'line 4, column Parent', message: '"id:999" is not the ID (id:<n>) or SKU of a variable product in the file' }]);
  });

  it('a mapping file with a bad rate or code is refused with its lines', async () => {
    const co = await company();
    const bad = 'match,tax_rate,hsn_code\nKurtas,five,6211\n*,18,62\n';
    expect(
      await problemsOf(ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, shopify(), { baseDir: '.', taxMap: bad })),
    ).toEqual([
      { path: 'line 2, column tax_rate', message: 'must be a GST percentage such as 5 or 18' },
      { path: 'line 3, column hsn_code', message: 'must be 4-8 digits' },
    ]);
  });
});

describe('photos from URLs', () => {
  it('a photo that cannot be fetched stops the import with its cell, or is left out with --skip-bad-photos', async () => {
    const co = await company();
    const broken = shopify().replace(`${origin}/urli.png`, `${origin}/missing-urli.png`);
    const problems = await problemsOf(
      ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, broken, { baseDir: '.', taxMap }),
    );
    expect(problems).toEqual([{ path: 'line 10, column Image Src', message: `could not fetch ${origin}/missing-urli.png: HTTP 404` }]);
    expect(await counts(co.company.id)).toMatchObject({ products: 0, photos: 0 });

    const r = await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, broken, {
      baseDir: '.',
      taxMap,
      skipBadPhotos: true,
    });
    expect(r.notes).toContain(`photo left out: could not fetch ${origin}/missing-urli.png: HTTP 404`);
    expect((await exported(co.company.id)).products.find((p) => p.sku === 'brass-urli')?.photos).toEqual([]);
    expect(await counts(co.company.id)).toMatchObject({ products: 4, photos: 6 });
  });

  it('each address is fetched once however many rows name it', async () => {
    const co = await company();
    served.length = 0;
    await ctx.services.catalogueImport.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, shopify(), { baseDir: '.', taxMap });
    expect(served.filter((u) => u === '/kurta-red.png')).toHaveLength(1);
    expect(new Set(served).size).toBe(served.length);
  });

  it('the guard: https only, never loopback/private/metadata after DNS, image types, size and time limits, redirects followed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fetch-'));
    const strict = DEFAULT_PHOTO_FETCH;
    const got = await fetchPhotos(
      [
        `${origin}/kurta.png`,
        'https://127.0.0.1/a.png',
        'https://localhost/a.png',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/a.png',
        'ftp://x.in/a.png',
      ],
      dir,
      strict,
    );
    expect(Object.fromEntries([...got].map(([u, f]) => [u, 'problem' in f ? f.problem : 'fetched']))).toEqual({
      [`${origin}/kurta.png`]: `${origin}/kurta.png: only https:// photos are fetched`,
      'https://127.0.0.1/a.png': 'https://127.0.0.1/a.png: refused, a loopback, private, link-local or metadata address',
      'https://localhost/a.png': 'https://localhost/a.png: refused, localhost resolves to a loopback, private, link-local or metadata address',
      'https://169.254.169.254/latest/meta-data': 'https://169.254.169.254/latest/meta-data: refused, a loopback, private, link-local or metadata address',
      'https://[::1]/a.png': 'https://[::1]/a.png: refused, a loopback, private, link-local or metadata address',
      'ftp://x.in/a.png': 'ftp://x.in/a.png: only https:// photos are fetched',
    });

    const local = { ...strict, allowHttp: true, allowPrivate: true, maxBytes: 32 * 1024, timeoutMs: 500 };
    const progress: number[] = [];
    const more = await fetchPhotos(
      ['page.png', 'big.png', 'slow.png', 'moved.png'].map((n) => `${origin}/${n}`),
      dir,
      local,
      (done) => progress.push(done),
    );
    const outcome = (n: string) => more.get(`${origin}/${n}`)!;
    expect(outcome('page.png')).toEqual({ problem: `${origin}/page.png is not an image (content-type text/html; png, jpeg, webp, gif, avif or svg)` });
    expect(outcome('big.png')).toEqual({ problem: `${origin}/big.png is larger than 0.03125 MB` });
    expect(outcome('slow.png')).toEqual({ problem: `could not fetch ${origin}/slow.png: timed out after 500 ms` });
    const moved = outcome('moved.png');
    expect('path' in moved && readFileSync(moved.path)).toEqual(png('kurta.png'));
    expect(progress).toEqual([1, 2, 3, 4]);
  });

  it('with the default (production) policy an import naming a local photo is refused', async () => {
    const co = await company();
    const strict = createCatalogueImportService({ db: ctx.db, mediaDir });
    const problems = await problemsOf(strict.importStorefront(co.company.id, { kind: 'cli', name: 'test' }, shopify(), { baseDir: '.', taxMap }));
    expect(problems[0]).toEqual({ path: 'line 2, column Image Src', message: `${origin}/kurta.png: only https:// photos are fetched` });
    expect(await counts(co.company.id)).toMatchObject({ products: 0 });
  });
});

describe('admin CLI', () => {
  it('catalog import takes a Shopify export with a mapping file and prints the summary and notes', async () => {
    const co = await company();
    const dir = mkdtempSync(join(tmpdir(), 'storefront-cli-'));
    writeFileSync(join(dir, 'products_export_1.csv'), shopify());
    writeFileSync(join(dir, 'gst.csv'), taxMap);
    const saved = { MEDIA_DIR: process.env.MEDIA_DIR, IMPORT_PHOTO_ALLOW_LOCAL: process.env.IMPORT_PHOTO_ALLOW_LOCAL };
    Object.assign(process.env, { MEDIA_DIR: mediaDir, IMPORT_PHOTO_ALLOW_LOCAL: 'true' });
    onTestFinished(() => {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    });
    const lines: string[] = [];
    const code = await runAdmin(
      ['catalog', 'import', '--company', co.company.slug, join(dir, 'products_export_1.csv'), '--tax-map', join(dir, 'gst.csv')],
      (t) => lines.push(t),
      { db: ctx.testDb.db },
    );
    expect(code).toBe(0);
    expect(lines.join('\n')).toMatch(
      /^imported Shopify export into .*: 1 locations, \d+ categories, 3 brands, 4 products, 6 variants, 7 photos\n {2}note: 1 variant/,
    );
    expect(await counts(co.company.id)).toMatchObject({ products: 4, variants: 6 });
  });
});
