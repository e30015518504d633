import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { BrandRow, CategoryRow, StockLocationRow } from '../db/schema/index.js';
import { newId } from '../lib/ids.js';

/** The synthetic catalogue's statements (catalogue.generate.ts): batched INSERT … SELECT FROM unnest(arrays). */

/**
 * GEN-WH and GEN-STORE, the warehouse shipping orders when the company has no location that does; the location that
 * ships orders and the store (absent when GEN-STORE is the one that ships).
 */
export async function generatedLocations(db: Db, companyId: string): Promise<{ shipFrom: string; store: string | undefined }> {
  const [{ n: shipping }] = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM stock_locations WHERE company_id = ${companyId} AND ships_orders`);
  await db.query(sql`INSERT INTO stock_locations (company_id, id, code, name, kind, ships_orders) VALUES
      (${companyId}, ${newId('loc')}, 'GEN-WH', 'Generated warehouse', 'warehouse', ${shipping === 0}),
      (${companyId}, ${newId('loc')}, 'GEN-STORE', 'Generated store', 'store', false)
    ON CONFLICT (company_id, code) DO NOTHING`);
  const locs = await db.query<Pick<StockLocationRow, 'id' | 'ships_orders'>>(
    sql`SELECT id, ships_orders FROM stock_locations WHERE company_id = ${companyId} AND (ships_orders OR code = 'GEN-STORE')`,
  );
  return { shipFrom: locs.find((l) => l.ships_orders)!.id, store: locs.find((l) => !l.ships_orders)?.id };
}

/** The category's id, made (or renamed) by slug. */
export async function generatedCategory(db: Db, companyId: string, name: string, slug: string): Promise<string> {
  const [row] = await db.query<
    Pick<CategoryRow, 'id'>
  >(sql`INSERT INTO categories (company_id, id, name, slug) VALUES (${companyId}, ${newId('cat')}, ${name}, ${slug})
      ON CONFLICT (company_id, slug) DO UPDATE SET name = EXCLUDED.name RETURNING id`);
  return row.id;
}

/** The brand's id, made (or renamed) by slug. */
export async function generatedBrand(db: Db, companyId: string, name: string, slug: string): Promise<string> {
  const [row] = await db.query<
    Pick<BrandRow, 'id'>
  >(sql`INSERT INTO brands (company_id, id, name, slug) VALUES (${companyId}, ${newId('brand')}, ${name}, ${slug})
      ON CONFLICT (company_id, slug) DO UPDATE SET name = EXCLUDED.name RETURNING id`);
  return row.id;
}

/** One batch's columns, an array each (the n-th entries make the n-th row). */
export interface GeneratedBatch {
  products: {
    id: string[];
    sku: string[];
    name: string[];
    sort: string[];
    desc: string[];
    unit: string[];
    hsn: string[];
    tax: string[];
    cat: string[];
    brand: string[];
  };
  variants: {
    id: string[];
    product: string[];
    sku: string[];
    barcode: (string | null)[];
    name: string[];
    attrs: string[];
    pos: number[];
    price: string[];
    mrp: string[];
  };
  stock: { variant: string[]; location: string[]; onHand: string[] };
}

/** Inserts one batch's products, variants and stock rows (in the caller's transaction). */
export async function insertGeneratedBatch(tx: Db, companyId: string, { products: p, variants: v, stock: s }: GeneratedBatch): Promise<void> {
  const arr = (xs: unknown[]) => sql.param(xs);
  await tx.query(sql`INSERT INTO products (company_id, id, sku, name, sort_name, description, unit, hsn_code, tax_rate, category_id, brand_id)
        SELECT ${companyId}, u.* FROM unnest(${arr(p.id)}::text[], ${arr(p.sku)}::text[], ${arr(p.name)}::text[], ${arr(p.sort)}::text[], ${arr(p.desc)}::text[],
          ${arr(p.unit)}::text[], ${arr(p.hsn)}::text[], ${arr(p.tax)}::numeric[], ${arr(p.cat)}::text[], ${arr(p.brand)}::text[]) AS u`);
  await tx.query(sql`INSERT INTO variants (company_id, id, product_id, sku, barcode, name, attributes, position, selling_price, mrp)
        SELECT ${companyId}, u.id, u.product_id, u.sku, u.barcode, u.name, u.attrs::jsonb, u.pos, u.price, u.mrp
        FROM unnest(${arr(v.id)}::text[], ${arr(v.product)}::text[], ${arr(v.sku)}::text[], ${arr(v.barcode)}::text[], ${arr(v.name)}::text[],
          ${arr(v.attrs)}::text[], ${arr(v.pos)}::int[], ${arr(v.price)}::numeric[], ${arr(v.mrp)}::numeric[]) AS u(id, product_id, sku, barcode, name, attrs, pos, price, mrp)`);
  await tx.query(sql`INSERT INTO stock_levels (company_id, variant_id, location_id, on_hand)
        SELECT ${companyId}, u.* FROM unnest(${arr(s.variant)}::text[], ${arr(s.location)}::text[], ${arr(s.onHand)}::numeric[]) AS u`);
}
