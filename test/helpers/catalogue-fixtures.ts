import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/index.js';
import { newId } from '../../src/lib/ids.js';
import { refreshListing } from '../../src/catalogue/catalogue.queries.js';

export interface VariantFixture {
  sku: string;
  name?: string;
  barcode?: string | null;
  attributes?: Record<string, string>;
  selling_price: string;
  mrp?: string;
  active?: boolean;
  /** on hand per location code; defaults to the ship-from location `WH` */
  stock?: Record<string, string> | string;
}

export interface ProductFixture {
  sku: string;
  name: string;
  description?: string | null;
  unit?: string;
  tax_rate?: string;
  hsn_code?: string | null;
  active?: boolean;
  category_id?: string | null;
  brand_id?: string | null;
  variants: VariantFixture[];
}

/** Stock locations for a company: `WH` ships orders, `STORE` does not (both active unless told). */
export async function addLocations(db: Db, companyId: string, opts: { whActive?: boolean; storeActive?: boolean } = {}) {
  const ids: Record<string, string> = { WH: newId('loc'), STORE: newId('loc') };
  await db.query(sql`INSERT INTO stock_locations (company_id, id, code, name, kind, active, ships_orders) VALUES
    (${companyId}, ${ids.WH}, 'WH', 'Warehouse', 'warehouse', ${opts.whActive ?? true}, true),
    (${companyId}, ${ids.STORE}, 'STORE', 'Retail store', 'store', ${opts.storeActive ?? true}, false)`);
  return ids;
}

/**
 * Inserts one product with its variants and stock, straight into the tables (no import), then keeps `listed`
 * and the listed-product counter as every writer does (refreshListing).
 */
export async function addProduct(db: Db, companyId: string, p: ProductFixture) {
  const productId = newId('prod');
  const locations = await db.query<{ id: string; code: string }>(sql`SELECT id, code FROM stock_locations WHERE company_id = ${companyId}`);
  const locId = (code: string) => {
    const loc = locations.find((l) => l.code === code);
    if (!loc) throw new Error(`fixture: no location ${code}; call addLocations first`);
    return loc.id;
  };
  const searchText = [
    p.name,
    p.sku,
    p.description ?? '',
    ...p.variants.flatMap((v) => [v.sku, v.barcode ?? '', v.name ?? v.sku, ...Object.values(v.attributes ?? {})]),
  ]
    .join(' ')
    .toLowerCase();
  await db.query(sql`INSERT INTO products (company_id, id, sku, name, sort_name, description, unit, hsn_code, tax_rate, active, category_id, brand_id, search_text)
    VALUES (${companyId}, ${productId}, ${p.sku}, ${p.name}, ${p.name.toLowerCase()}, ${p.description ?? null}, ${p.unit ?? 'PCS'}, ${p.hsn_code ?? null},
            ${p.tax_rate ?? '18'}, ${p.active ?? true}, ${p.category_id ?? null}, ${p.brand_id ?? null}, ${searchText})`);
  const variantIds: Record<string, string> = {};
  for (const [i, v] of p.variants.entries()) {
    const id = newId('var');
    variantIds[v.sku] = id;
    await db.query(sql`INSERT INTO variants (company_id, id, product_id, sku, barcode, name, attributes, position, selling_price, mrp, active)
      VALUES (${companyId}, ${id}, ${productId}, ${v.sku}, ${v.barcode ?? null}, ${v.name ?? v.sku}, ${JSON.stringify(v.attributes ?? {})}::jsonb, ${i},
              ${v.selling_price}, ${v.mrp ?? v.selling_price}, ${v.active ?? true})`);
    const stock = typeof v.stock === 'string' || v.stock === undefined ? { WH: v.stock ?? '0' } : v.stock;
    for (const [code, qty] of Object.entries(stock)) {
      await db.query(sql`INSERT INTO stock_levels (company_id, variant_id, location_id, on_hand) VALUES (${companyId}, ${id}, ${locId(code)}, ${qty})`);
    }
  }
  await refreshListing(db, companyId, [productId]);
  return { productId, variantIds };
}
