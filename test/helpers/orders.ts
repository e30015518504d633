import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { TestApp } from './app.js';
import { createCompanyWithKey } from './fixtures.js';
import { addLocations, addProduct, type ProductFixture } from './catalogue-fixtures.js';
import type { CompanyInput } from '../../src/companies/companies.service.js';

export const BASE = '/api/v1/commerce';

export const uid = () => randomBytes(4).toString('hex');

/** A company with a key, its two locations and the given products (SKUs made unique per company by the caller). */
export async function shop(
  ctx: TestApp,
  products: ProductFixture[] = [],
  opts: { company?: Partial<CompanyInput>; whActive?: boolean; noLocations?: boolean } = {},
) {
  const co = await createCompanyWithKey(ctx.services, opts.company);
  const locations = opts.noLocations ? undefined : await addLocations(ctx.db, co.company.id, { whActive: opts.whActive });
  const variantIds: Record<string, string> = {};
  for (const p of products) Object.assign(variantIds, (await addProduct(ctx.db, co.company.id, p)).variantIds);
  return { ...co, companyId: co.company.id, locations, variantIds };
}

export function orderBody(overrides: Record<string, unknown> = {}) {
  return {
    customer: { name: 'Asha Rao', phone: '+91 98765 43210' },
    items: [{ product_id: 'TEE-M', quantity: 1 }],
    external_reference: `ext-${uid()}`,
    delivery_address: { line1: '12 MG Road', line2: 'Indiranagar', city: 'Bengaluru', pincode: '560038' },
    ...overrides,
  };
}

export async function post(ctx: TestApp, headers: Record<string, string>, body: unknown) {
  const res = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers, payload: body as object });
  return { status: res.statusCode, body: res.json() };
}

export async function get(ctx: TestApp, headers: Record<string, string>, path: string) {
  const res = await ctx.app.inject({ method: 'GET', url: `${BASE}${path}`, headers });
  return { status: res.statusCode, body: res.json() };
}

/** The app listening on a real port (once per file), so parallel requests truly overlap. */
export async function listeningUrl(ctx: TestApp): Promise<string> {
  const app = ctx.app as TestApp['app'] & { __url?: string };
  if (!app.__url) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    app.__url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${BASE}`;
  }
  return app.__url;
}

export async function fetchJson(url: string, init: { method: string; headers: Record<string, string>; body?: unknown }) {
  const res = await fetch(url, {
    method: init.method,
    headers: { ...init.headers, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: await res.json() };
}

export async function stockRow(ctx: TestApp, companyId: string, variantId: string) {
  const [row] = await ctx.db.query<{ on_hand: string; reserved: string; open: string }>(sql`
    SELECT s.on_hand, s.reserved,
      (SELECT coalesce(sum(quantity), 0) FROM stock_reservations r
        WHERE r.company_id = ${companyId} AND r.variant_id = s.variant_id AND r.location_id = s.location_id AND r.status = 'open') AS open
    FROM stock_levels s JOIN stock_locations l ON l.company_id = ${companyId} AND l.id = s.location_id AND l.ships_orders
    WHERE s.company_id = ${companyId} AND s.variant_id = ${variantId}`);
  return row;
}

export async function count(ctx: TestApp, table: 'orders' | 'customers' | 'order_lines' | 'stock_reservations' | 'jobs', companyId: string) {
  const [row] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE company_id = ${companyId}`);
  return row.n;
}
