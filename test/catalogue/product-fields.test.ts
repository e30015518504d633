import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { productDetailSchema, productSchema } from '../../src/contract/catalogue.js';
import { productEntry } from '../../src/contract/catalogue-file.js';
import { BESIDE_NAME, DETAILS, PRODUCT_FIELD_NAMES, productFields } from '../../src/contract/product-fields.js';

/**
 * A product's own fields have one definition (src/contract/product-fields.ts): the API's Product, the catalogue file,
 * the read model, the import and the export all take them from it. A field added to one door by hand, or a door that
 * leaves one out, fails here.
 */
const BASE = '/api/v1/commerce';
const ctx = useTestApp();

/** What the Product and the file entry hold besides the product fields. */
const PRODUCT_OWN = [
  'product_id',
  'sku',
  'name',
  'category',
  'brand',
  'currency',
  'price_range',
  'options',
  'available',
  'available_total',
  'in_stock',
  'image_url',
  'variants',
];
const ENTRY_OWN = ['sku', 'name', 'active', 'category', 'brand', 'photos', 'variants'];

/** A value every field accepts and stores as written: the first candidate its file schema takes unchanged. */
function sampleOf(name: (typeof PRODUCT_FIELD_NAMES)[number]): string {
  const found = [`${name}-sample`, '12345678', '7.25'].find((c) => {
    const r = productFields[name].file.safeParse(c);
    return r.success && r.data === c;
  });
  if (!found) throw new Error(`no sample value for the product field ${name}: add a candidate`);
  return found;
}

describe('product fields', () => {
  it('the API Product and the catalogue file entry hold exactly the defined fields, in order', () => {
    expect(PRODUCT_FIELD_NAMES).toEqual([...BESIDE_NAME, ...DETAILS]);
    expect(Object.keys(productSchema.shape).filter((k) => !PRODUCT_OWN.includes(k))).toEqual(PRODUCT_FIELD_NAMES);
    expect(Object.keys(productSchema.shape)).toEqual(['product_id', 'sku', 'name', ...BESIDE_NAME, 'category', 'brand', ...DETAILS, ...PRODUCT_OWN.slice(5)]);
    expect(Object.keys(productEntry.shape).filter((k) => !ENTRY_OWN.includes(k))).toEqual(PRODUCT_FIELD_NAMES);
    expect(Object.keys(productEntry.shape)).toEqual(['sku', 'name', ...PRODUCT_FIELD_NAMES, ...ENTRY_OWN.slice(2)]);
  });

  it('every field set by the import comes back from REST detail and browse, MCP and the export', async () => {
    const co = await createCompanyWithKey(ctx.services);
    const values = Object.fromEntries(PRODUCT_FIELD_NAMES.map((name) => [name, sampleOf(name)]));
    await ctx.services.catalogueImport.importCatalogue(
      co.company.id,
      { kind: 'cli', name: 'test' },
      {
        locations: [{ code: 'WH', name: 'Warehouse', ships_orders: true }],
        products: [{ sku: 'PF-1', name: 'Field Kurta', ...values, variants: [{ sku: 'PF-1-M', selling_price: '10', stock: { WH: '1' } }] }],
      },
      { baseDir: '.' },
    );

    const detail = await ctx.app.inject({ url: `${BASE}/catalog/products/PF-1`, headers: co.headers });
    expect(detail.statusCode).toBe(200);
    const restProduct = detail.json<{ data: Record<string, unknown> }>().data;
    const browse = await ctx.app.inject({ url: `${BASE}/catalog/products?search=field`, headers: co.headers });
    const browsed = browse.json<{ data: Record<string, unknown>[] }>().data[0];

    const mcp = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/mcp`,
      headers: { ...co.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_product_details', arguments: { id: 'PF-1' } } },
    });
    const result = mcp.json<{ result: { content: { text: string }[]; structuredContent: { data: Record<string, unknown> } } }>().result;
    const mcpText = (JSON.parse(result.content[0].text) as { data: Record<string, unknown> }).data;

    const exported = (await ctx.services.catalogueImport.exportCatalogue(co.company.id)).file.products[0] as Record<string, unknown>;

    for (const name of PRODUCT_FIELD_NAMES) {
      expect({
        name,
        rest: restProduct[name],
        browse: browsed[name],
        mcp: result.structuredContent.data[name],
        mcpText: mcpText[name],
        export: exported[name],
      }).toEqual({
        name,
        rest: values[name],
        browse: values[name],
        mcp: values[name],
        mcpText: values[name],
        export: values[name],
      });
    }
    // the service builds the Product in the schema's order: REST (written by the schema) and MCP's text agree byte for byte
    expect(Object.keys(mcpText)).toEqual(Object.keys(productDetailSchema.shape));
    expect(JSON.stringify(mcpText).replace(/expires=\d+&sig=[\w-]+/g, '')).toBe(JSON.stringify(restProduct).replace(/expires=\d+&sig=[\w-]+/g, ''));
  });
});
