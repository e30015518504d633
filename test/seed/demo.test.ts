import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import type { CategoriesResult, Product } from '../../src/contract/catalogue.js';
import { seedDemo } from '../../src/seed/demo.js';

const ctx = useTestApp({ MEDIA_DIR: mkdtempSync(join(tmpdir(), 'demo-media-')) });

describe('demo catalogue', () => {
  it('seeds a realistic Indian D2C catalogue that the API serves', async () => {
    const seeded = await seedDemo(ctx.db, ctx.services);
    expect(seeded).not.toBeNull();
    const headers = { 'x-api-key': seeded!.key };
    expect(await ctx.services.taxProfiles.get(seeded!.companyId)).toMatchObject({ gstin: '29ABCDE1234F1ZW', state: 'Karnataka', invoice_prefix: 'INV' });
    const base = `${ctx.config.BASE_PATH}/catalog`;
    const all = (await ctx.app.inject({ url: `${base}/products?limit=50`, headers })).json();
    expect(all.total).toBeGreaterThanOrEqual(20);
    const products = all.data as Product[];
    expect(new Set(products.map((p) => p.tax_rate))).toEqual(new Set(['0.00', '5.00', '12.00', '18.00']));
    expect(products.every((p) => p.hsn_code !== null && /^\d{4,8}$/.test(p.hsn_code))).toBe(true);
    const variants = products.flatMap((p) => p.variants);
    expect(variants.every((v) => new Decimal(v.mrp).gte(v.selling_price))).toBe(true);
    expect(variants.filter((v) => !v.in_stock).length).toBeGreaterThanOrEqual(3);
    expect(products.some((p) => p.unit === 'KG' && /^\d+\.\d{3}$/.test(p.available) && !p.available.endsWith('.000'))).toBe(true);
    const shirt = products.find((p) => p.options.Size?.length > 1 && p.options.Colour?.length > 1)!; // without one the next line fails
    expect(shirt.options.Size.length).toBeGreaterThan(1);
    expect(shirt.image_url).toMatch(/\/media\//);
    // stock at the store is counted in the total, not in what can be ordered
    expect(products.some((p) => new Decimal(p.available_total).gt(p.available))).toBe(true);
    const cats: CategoriesResult = (await ctx.app.inject({ url: `${base}/categories`, headers })).json().data;
    expect(cats.brands.length).toBeGreaterThanOrEqual(4);
    expect(cats.categories.some((c) => c.parent_id && cats.categories.find((p) => p.id === c.parent_id)?.parent_id)).toBe(true);
    expect((await ctx.app.inject({ url: `${base}/products?category=grocery`, headers })).json().total).toBeGreaterThanOrEqual(5);
    expect((await ctx.app.inject({ url: `${base}/products?search=white%20shirt%20xl`, headers })).json().total).toBeGreaterThanOrEqual(1);
    const img = await ctx.app.inject({ url: shirt.image_url!.replace(/^http:\/\/[^/]+/, '') });
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
    const locs = await ctx.db.query<{ kind: string; ships_orders: boolean }>(
      sql`SELECT kind, ships_orders FROM stock_locations WHERE company_id = ${seeded!.companyId} ORDER BY kind`,
    );
    expect(locs).toEqual([
      { kind: 'store', ships_orders: false },
      { kind: 'warehouse', ships_orders: true },
    ]);
  });
});
