import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { BASE, callTool, seedCompany, tableCounts, type Seeded } from '../helpers/security-world.js';

/**
 * Tenant isolation matrix: company A's key against every kind of identifier of company B's objects, on
 * every REST endpoint and every MCP tool. Always 404 (or an empty list for filters), never B's data.
 * Each identifier is first shown to work with B's own key, so a 404 here means isolation, not a typo.
 */
const ctx = useTestApp();
let A: Seeded;
let B: Seeded;

beforeAll(async () => {
  A = await seedCompany(ctx, 'ALPHA');
  B = await seedCompany(ctx, 'BRAVO');
});

/** Any trace of B in a response: its marker, ids, SKUs, barcode, phone digits, order number. */
function leaks(text: string): string[] {
  const needles = [
    B.marker,
    B.productId,
    B.variantId,
    B.barcode,
    B.orderId,
    B.orderNumber,
    B.externalReference,
    B.phone.slice(-8),
    B.customerId,
    B.categoryId,
    B.brandId,
    B.companyId,
  ];
  return needles.filter((n) => text.includes(n));
}

const get = (headers: Record<string, string>, path: string) => ctx.app.inject({ method: 'GET', url: `${BASE}${path}`, headers });
const enc = encodeURIComponent;

const productIds = () => ({
  'product id': B.productId,
  'product SKU': B.productSku,
  'variant id': B.variantId,
  'variant SKU': B.variantSku,
  barcode: B.barcode,
});
const orderRefs = () => ({ 'order number': B.orderNumber, 'order id': B.orderId, external_reference: B.externalReference });
const filters = () => ({
  'category id': ['category', B.categoryId],
  'category slug': ['category', B.categorySlug],
  'category name': ['category', B.categoryName],
  'parent category id': ['category', B.parentCategoryId],
  'brand id': ['brand', B.brandId],
  'brand slug': ['brand', B.brandSlug],
  'brand name': ['brand', B.brandName],
  'search by name': ['search', `Kurta ${B.marker}`],
  'search by SKU': ['search', B.variantSku],
  'search by barcode': ['search', B.barcode],
});

describe('REST: A’s key never reaches B’s objects', () => {
  it('product detail by every identifier: B sees it, A gets 404 with none of B’s data', async () => {
    let tried = 0;
    for (const [kind, id] of Object.entries(productIds())) {
      const own = await get(B.headers, `/catalog/products/${enc(id)}`);
      expect(own.statusCode, `B’s own ${kind}`).toBe(200);
      const res = await get(A.headers, `/catalog/products/${enc(id)}`);
      expect(res.statusCode, kind).toBe(404);
      expect(res.json().error.code).toBe('not_found');
      expect(leaks(res.body.replace(id, '')), kind).toEqual([]);
      tried++;
    }
    expect(tried).toBe(5);
  });

  it('browse filters and search with B’s category, brand, names and codes: B finds its product, A gets an empty list', async () => {
    for (const [kind, [param, value]] of Object.entries(filters())) {
      const own = await get(B.headers, `/catalog/products?${param}=${enc(value)}`);
      expect(own.json().count, `B’s own ${kind}`).toBe(1);
      const res = await get(A.headers, `/catalog/products?${param}=${enc(value)}`);
      expect(res.statusCode, kind).toBe(200);
      expect(res.json(), kind).toMatchObject({ data: [], count: 0, total: 0 });
    }
  });

  it('browse and categories list only A’s own things', async () => {
    const browse = await get(A.headers, '/catalog/products?limit=50');
    expect(browse.json().data.map((p: { product_id: string }) => p.product_id)).toEqual([A.productId]);
    expect(leaks(browse.body)).toEqual([]);
    const cats = await get(A.headers, '/catalog/categories');
    expect(cats.statusCode).toBe(200);
    expect(leaks(cats.body)).toEqual([]);
    expect(cats.json().data.categories).toHaveLength(2);
  });

  it('order lookup by B’s order number, order id and external_reference (with and without B’s phone): 404', async () => {
    for (const [kind, ref] of Object.entries(orderRefs())) {
      expect((await get(B.headers, `/orders/${enc(ref)}`)).statusCode, `B’s own ${kind}`).toBe(200);
      for (const q of ['', `?phone=${enc(B.phone)}`]) {
        const res = await get(A.headers, `/orders/${enc(ref)}${q}`);
        expect(leaks(res.body.replaceAll(ref, ''))).toEqual([]);
        // Order numbers count per company: A has an ORD-100001 of its own, and finding it is no leak.
        if (kind === 'order number' && q === '' && res.statusCode === 200) {
          expect(res.json().data.order_id).toBe(A.orderId);
          continue;
        }
        expect(res.statusCode, `${kind}${q}`).toBe(404);
      }
    }
  });

  it('customer lookup by B’s customer phone: 404', async () => {
    expect((await get(B.headers, `/customers?phone=${enc(B.phone)}`)).statusCode).toBe(200);
    for (const phone of [B.phone, `+91 ${B.phone}`, `0${B.phone}`]) {
      const res = await get(A.headers, `/customers?phone=${enc(phone)}`);
      expect(res.statusCode).toBe(404);
      expect(leaks(res.body)).toEqual([]);
    }
  });

  it('ordering B’s variants by SKU, id or barcode: 404 and nothing written in either company', async () => {
    const before = [await tableCounts(ctx, A.companyId), await tableCounts(ctx, B.companyId)];
    for (const id of [B.variantSku, B.variantId, B.barcode, B.productId, B.productSku]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: `${BASE}/orders`,
        headers: A.headers,
        payload: { customer: { name: 'X', phone: '9876543210' }, items: [{ product_id: id, quantity: 1 }], external_reference: `iso-${id}` },
      });
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error.details).toEqual([id]);
    }
    expect([await tableCounts(ctx, A.companyId), await tableCounts(ctx, B.companyId)]).toEqual(before);
  });

  it('B’s external_reference is A’s own namespace: A gets a new order of its own, never B’s order as a duplicate', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: A.headers,
      payload: {
        customer: { name: 'A buyer', phone: '9876543211' },
        items: [{ product_id: A.variantSku, quantity: 1 }],
        external_reference: B.externalReference,
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.order_id).not.toBe(B.orderId);
    expect(leaks(res.body.replace(B.externalReference, ''))).toEqual([]);
    // and B still gets its own order by that reference
    expect((await get(B.headers, `/orders/${enc(B.externalReference)}`)).json().data.order_id).toBe(B.orderId);
  });

  it('company identifiers in the request are ignored (company_id query, X-Company-Id header)', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `${BASE}/catalog/products?company_id=${B.companyId}&company=${B.companyId}`,
      headers: { ...A.headers, 'x-company-id': B.companyId },
    });
    expect(res.json().data.map((p: { product_id: string }) => p.product_id)).toEqual([A.productId]);
  });
});

describe('MCP: the same matrix through every tool', () => {
  it('get_product_details and get_product with every identifier: B answered, A not_found', async () => {
    for (const tool of ['get_product_details', 'get_product']) {
      for (const [kind, id] of Object.entries(productIds())) {
        const own = await callTool(ctx, B.headers, tool, { id });
        const a = await callTool(ctx, A.headers, tool, { id });
        // get_product is the flat v1.0 lookup: variant SKU, id or barcode only
        const applies = tool === 'get_product_details' || ['variant id', 'variant SKU', 'barcode'].includes(kind);
        if (applies) expect(own.isError, `${tool} B’s own ${kind}`).toBe(false);
        expect(a.status).toBe(200);
        expect(a.isError, `${tool} ${kind}`).toBe(true);
        expect(a.json.error.code).toBe('not_found');
        expect(leaks(a.raw.replaceAll(id, ''))).toEqual([]);
      }
    }
  });

  it('browse_catalog and search_products with B’s filters and words: empty for A', async () => {
    for (const [kind, [param, value]] of Object.entries(filters())) {
      expect((await callTool(ctx, B.headers, 'browse_catalog', { [param]: value })).json.count, `B’s own ${kind}`).toBe(1);
      const a = await callTool(ctx, A.headers, 'browse_catalog', { [param]: value });
      expect(a.isError).toBe(false);
      expect(a.json, kind).toMatchObject({ data: [], count: 0 });
    }
    for (const search of [B.variantSku, B.barcode, `Kurta ${B.marker}`]) {
      const a = await callTool(ctx, A.headers, 'search_products', { search });
      expect(a.isError).toBe(false);
      expect(a.json.data, search).toEqual([]);
    }
    const all = await callTool(ctx, A.headers, 'browse_catalog', {});
    expect(leaks(all.raw)).toEqual([]);
    const flat = await callTool(ctx, A.headers, 'search_products', {});
    expect(leaks(flat.raw)).toEqual([]);
  });

  it('list_categories shows none of B’s', async () => {
    const a = await callTool(ctx, A.headers, 'list_categories', {});
    expect(a.isError).toBe(false);
    expect(leaks(a.raw)).toEqual([]);
  });

  it('get_order by every B reference and find_customer by B’s phone: not_found', async () => {
    for (const [kind, reference] of Object.entries(orderRefs())) {
      expect((await callTool(ctx, B.headers, 'get_order', { reference })).isError).toBe(false);
      for (const args of [{ reference }, { reference, phone: B.phone }]) {
        const a = await callTool(ctx, A.headers, 'get_order', args);
        expect(leaks(a.raw.replaceAll(reference, ''))).toEqual([]);
        // A placed an order of its own with B's external_reference above (its own namespace): that one may be found;
        // so may A's own order with B's order number (numbers count per company)
        if ((kind === 'external_reference' || kind === 'order number') && !a.isError && !('phone' in args)) {
          expect(a.json.data.order_id).not.toBe(B.orderId);
          continue;
        }
        expect(a.isError, kind).toBe(true);
        expect(a.json.error.code).toBe('not_found');
      }
    }
    expect((await callTool(ctx, B.headers, 'find_customer', { phone: B.phone })).isError).toBe(false);
    const c = await callTool(ctx, A.headers, 'find_customer', { phone: B.phone });
    expect(c.isError).toBe(true);
    expect(c.json.error.code).toBe('not_found');
  });

  it('place_order with B’s variants: not_found, nothing written', async () => {
    const before = [await tableCounts(ctx, A.companyId), await tableCounts(ctx, B.companyId)];
    for (const id of [B.variantSku, B.variantId, B.barcode]) {
      const a = await callTool(ctx, A.headers, 'place_order', {
        customer: { name: 'X', phone: '9876543210' },
        items: [{ product_id: id, quantity: 1 }],
        external_reference: `mcp-iso-${id}`,
      });
      expect(a.isError).toBe(true);
      expect(a.json.error.code).toBe('not_found');
    }
    expect([await tableCounts(ctx, A.companyId), await tableCounts(ctx, B.companyId)]).toEqual(before);
  });
});

describe('signed photo links', () => {
  it('A’s detail never carries a link to B’s photo folder', async () => {
    const res = await get(A.headers, `/catalog/products/${enc(A.productId)}`);
    expect(res.statusCode).toBe(200);
    const images = res.json().data.images as { url: string }[];
    expect(images.length).toBe(1);
    for (const img of images) expect(img.url).toContain(`/media/${A.companyId}/`);
    expect(res.body).not.toContain(B.companyId);
  });
});
