import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { browseQuerySchema, productIdSchema } from '../../src/contract/catalogue.js';

const ctx = useTestApp();

describe('browse arguments as the MCP tool gets them (JSON, not query strings)', () => {
  it('takes real booleans and numbers, defaults the rest', () => {
    expect(browseQuerySchema.parse({})).toEqual({ limit: 20, offset: 0 });
    expect(browseQuerySchema.parse({ in_stock: true, limit: 50, offset: 10000 })).toMatchObject({ in_stock: true, limit: 50, offset: 10000 });
    expect(browseQuerySchema.parse({ in_stock: false })).toMatchObject({ in_stock: false });
    expect(browseQuerySchema.parse({ in_stock: 'false' })).toMatchObject({ in_stock: false });
    expect(browseQuerySchema.parse({ search: '  red shirt  ' }).search).toBe('red shirt');
    for (const bad of [
      { in_stock: 'yes' },
      { in_stock: 1 },
      { in_stock: null },
      { limit: 2.5 },
      { limit: 0 },
      { limit: 51 },
      { offset: -1 },
      { offset: 10001 },
      { limit: '20.0' },
      { search: 5 },
    ]) {
      expect(browseQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(productIdSchema.safeParse({ id: '' }).success).toBe(false);
    expect(productIdSchema.safeParse({ id: 'x'.repeat(64) }).success).toBe(true);
  });
});

describe('hostile input is never a 500', () => {
  it.each([
    '/catalog/products?search=%00',
    '/catalog/products?search=a%00b',
    '/catalog/products?category=%00',
    '/catalog/products?brand=x%00',
    '/catalog/products?search=%F0%9F%91%95%20%E0%A4%95%E0%A5%81%E0%A4%B0%E0%A5%8D%E0%A4%A4%E0%A4%BE',
    '/catalog/products?search=%5C%25_',
    "/catalog/products?search='%3B%20DROP%20TABLE%20products%3B--",
    '/catalog/products/%00',
    '/catalog/products/a%00b',
    '/catalog/products/..%2F..%2Fetc',
    '/catalog/products?limit=99999999999999999999',
    '/catalog/products?offset=%20',
    '/catalog/products?search[]=a',
  ])('%s', async (path) => {
    const co = await createCompanyWithKey(ctx.services);
    const res = await ctx.app.inject({ url: `${ctx.config.BASE_PATH}${path}`, headers: co.headers });
    expect(res.statusCode, res.body).toBeLessThan(500);
    expect([200, 400, 404]).toContain(res.statusCode);
    if (res.statusCode !== 200) expect(res.json().error?.code, res.body).toMatch(/validation_failed|not_found/);
  });
});
