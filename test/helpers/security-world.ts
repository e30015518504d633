import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { TestApp } from './app.js';
import { createCompanyWithKey } from './fixtures.js';
import { addLocations, addProduct } from './catalogue-fixtures.js';
import { newId } from '../../src/lib/ids.js';

export const BASE = '/api/v1/commerce';

/**
 * One company with something of every kind: a category tree, a brand, a product with two variants
 * (one with a barcode), a photo, and an order placed through the API (so a customer exists too).
 * Names carry `marker`, so a response leaking this company's data is found by a substring search.
 */
export async function seedCompany(ctx: TestApp, marker: string) {
  const co = await createCompanyWithKey(ctx.services);
  const companyId = co.company.id;
  const locations = await addLocations(ctx.db, companyId);
  const parentId = newId('cat');
  const categoryId = newId('cat');
  const brandId = newId('brand');
  await ctx.db.query(sql`INSERT INTO categories (company_id, id, parent_id, name, slug) VALUES
    (${companyId}, ${parentId}, NULL, ${`Parent ${marker}`}, ${`parent-${marker.toLowerCase()}`}),
    (${companyId}, ${categoryId}, ${parentId}, ${`Kurtas ${marker}`}, ${`kurtas-${marker.toLowerCase()}`})`);
  await ctx.db.query(
    sql`INSERT INTO brands (company_id, id, name, slug) VALUES (${companyId}, ${brandId}, ${`Brand ${marker}`}, ${`brand-${marker.toLowerCase()}`})`,
  );
  const barcode = `89${randomBytes(5).readUIntBE(0, 5).toString().padStart(11, '0')}`.slice(0, 13);
  const product = await addProduct(ctx.db, companyId, {
    sku: `P-${marker}`,
    name: `Kurta ${marker}`,
    description: `Cotton kurta ${marker}`,
    category_id: categoryId,
    brand_id: brandId,
    variants: [
      { sku: `V-${marker}-M`, barcode, attributes: { Size: 'M' }, selling_price: '999.00', stock: '50' },
      { sku: `V-${marker}-L`, attributes: { Size: 'L' }, selling_price: '1099.00', stock: '50' },
    ],
  });
  await ctx.db.query(sql`INSERT INTO product_photos (company_id, id, product_id, variant_id, path, alt, position)
    VALUES (${companyId}, ${newId('photo')}, ${product.productId}, NULL, ${`${companyId}/kurta.jpg`}, ${`Photo ${marker}`}, 0)`);
  const phone = `98${String(randomBytes(4).readUInt32BE() % 100_000_000).padStart(8, '0')}`;
  const externalReference = `ext-${marker}-${randomBytes(3).toString('hex')}`;
  const res = await ctx.app.inject({
    method: 'POST',
    url: `${BASE}/orders`,
    headers: co.headers,
    payload: {
      customer: { name: `Buyer ${marker}`, phone, email: `${marker.toLowerCase()}@example.com` },
      items: [{ product_id: `V-${marker}-M`, quantity: 1 }],
      external_reference: externalReference,
      delivery_address: { line1: `1 ${marker} Street`, city: 'Bengaluru', pincode: '560038' },
    },
  });
  if (res.statusCode !== 201) throw new Error(`seed order failed: ${res.statusCode} ${res.body}`);
  const order = res.json().data;
  const [customer] = await ctx.db.query<{ id: string }>(sql`SELECT id FROM customers WHERE company_id = ${companyId}`);
  return {
    ...co,
    companyId,
    marker,
    locations,
    productId: product.productId,
    productSku: `P-${marker}`,
    variantId: product.variantIds[`V-${marker}-M`],
    variantSku: `V-${marker}-M`,
    barcode,
    categoryId,
    categorySlug: `kurtas-${marker.toLowerCase()}`,
    categoryName: `Kurtas ${marker}`,
    parentCategoryId: parentId,
    brandId,
    brandSlug: `brand-${marker.toLowerCase()}`,
    brandName: `Brand ${marker}`,
    orderId: order.order_id as string,
    orderNumber: order.order_number as string,
    externalReference,
    phone,
    customerId: customer.id,
  };
}

export type Seeded = Awaited<ReturnType<typeof seedCompany>>;

/**
 * Row counts of every table a request could write to, for one company or (without one) summed over every company of
 * the file's database. Each company's counts are one statement filtered by that company (one shard on Citus, where a
 * count over every company would visit every shard of eleven tables); every tenant row belongs to a listed company
 * (a foreign key), so the sum is the whole database.
 */
export async function tableCounts(ctx: TestApp, companyId?: string): Promise<Record<string, number>> {
  const companies = companyId ? [companyId] : (await ctx.db.query<{ id: string }>(sql`SELECT id FROM companies ORDER BY id`)).map((c) => c.id);
  const out: Record<string, number> = {};
  for (const id of companies) {
    const counts = COUNTED_TABLES.map((t) => sql`(SELECT count(*)::int FROM ${sql.identifier(t)} WHERE company_id = ${id}) AS ${sql.identifier(t)}`);
    const [row] = await ctx.db.query<Record<string, number | string>>(
      sql`SELECT ${sql.join(counts, sql`, `)}, (SELECT coalesce(sum(reserved), 0)::text FROM stock_levels WHERE company_id = ${id}) AS reserved`,
    );
    for (const [k, v] of Object.entries(row)) out[k] = (out[k] ?? 0) + Number(v);
  }
  return out;
}

const COUNTED_TABLES = ['orders', 'order_lines', 'customers', 'stock_reservations', 'jobs', 'products', 'variants', 'categories', 'brands', 'api_keys'];

/** Calls an MCP tool over raw JSON-RPC (stateless server: no initialize needed). */
export async function callTool(ctx: TestApp, headers: Record<string, string>, name: string, args: unknown) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: `${BASE}/mcp`,
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  const body = res.body ? res.json() : undefined;
  const result = body?.result as { isError?: boolean; content?: { type: string; text: string }[] } | undefined;
  // The tool's JSON answer (an `{ error }` or a tool result, or the raw text if not JSON) is untyped on purpose, like
  // `res.json()`: these tests assert its shape field by field across many tools (see the test override in eslint.config.js).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let json: any;
  try {
    json = result?.content?.[0]?.text ? JSON.parse(result.content[0].text) : undefined;
  } catch {
    json = result?.content?.[0]?.text;
  }
  return { status: res.statusCode, raw: res.body, rpc: body, isError: result?.isError === true, json };
}
