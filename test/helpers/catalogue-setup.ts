import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/index.js';
import { newId } from '../../src/lib/ids.js';
import { refreshInStockOfVariants, refreshSearchText } from '../../src/catalogue/catalogue.queries.js';
import { bumpCatalogueVersion } from '../../src/catalogue/read-model.queries.js';
import { addProduct, type ProductFixture } from './catalogue-fixtures.js';

export async function addCategory(db: Db, companyId: string, name: string, slug: string, parentId: string | null = null): Promise<string> {
  const id = newId('cat');
  await db.query(sql`INSERT INTO categories (company_id, id, parent_id, name, slug) VALUES (${companyId}, ${id}, ${parentId}, ${name}, ${slug})`);
  await bumpCatalogueVersion(db, companyId); // as every catalogue writer does
  return id;
}

export async function addBrand(db: Db, companyId: string, name: string, slug: string): Promise<string> {
  const id = newId('brand');
  await db.query(sql`INSERT INTO brands (company_id, id, name, slug) VALUES (${companyId}, ${id}, ${name}, ${slug})`);
  await bumpCatalogueVersion(db, companyId);
  return id;
}

/** The shared fixture, then our own search_text function over it (so the tests exercise it). */
export async function addSearchableProduct(db: Db, companyId: string, p: ProductFixture) {
  const made = await addProduct(db, companyId, p);
  await db.query(sql`UPDATE products SET search_text = '' WHERE company_id = ${companyId} AND id = ${made.productId}`);
  await refreshSearchText(db, companyId, [made.productId]);
  return made;
}

export async function addPhoto(db: Db, companyId: string, productId: string, path: string, opts: { variantId?: string; alt?: string; position?: number } = {}) {
  await db.query(sql`INSERT INTO product_photos (company_id, id, product_id, variant_id, path, alt, position)
    VALUES (${companyId}, ${newId('photo')}, ${productId}, ${opts.variantId ?? null}, ${path}, ${opts.alt ?? null}, ${opts.position ?? 0})`);
  await bumpCatalogueVersion(db, companyId);
}

export async function setStock(db: Db, companyId: string, variantId: string, locationId: string, onHand: string, reserved = '0') {
  await db.query(sql`INSERT INTO stock_levels (company_id, variant_id, location_id, on_hand, reserved)
    VALUES (${companyId}, ${variantId}, ${locationId}, ${onHand}, ${reserved})
    ON CONFLICT (company_id, variant_id, location_id) DO UPDATE SET on_hand = EXCLUDED.on_hand, reserved = EXCLUDED.reserved`);
  await refreshInStockOfVariants(db, companyId, [variantId]); // as every writer of stock does
}

export const DECIMAL2 = /^\d+\.\d{2}$/;
export const DECIMAL3 = /^\d+\.\d{3}$/;
