import { sql } from 'drizzle-orm';
import { checkTaxProfile, writeTaxProfile } from '../../companies/tax-profile.service.js';
import type { Db } from '../../db/index.js';
import type { ProductRow, VariantRow } from '../../db/schema/index.js';
import { newId } from '../../lib/ids.js';
import type { CatalogueFile } from '../../contract/catalogue-file.js';
import { refreshInStockOfCompany, refreshListing, refreshSearchText } from '../catalogue.queries.js';
import { bumpCatalogueVersion } from '../read-model.queries.js';
import type { PhotoCopy } from './photos.js';

const CHUNK = 200;

export interface ImportSummary {
  locations: number;
  categories: number;
  brands: number;
  products: number;
  variants: number;
  photos: number;
}

export interface ImportOptions {
  /** folder photo `file` paths are relative to (the import file's folder) */
  baseDir: string;
  onProgress?: (done: number, total: number) => void;
  /** after each photo named by URL is fetched */
  onPhotoProgress?: (done: number, total: number, failed: number) => void;
  /** a photo that cannot be fetched is left out (and told through onNote) instead of stopping the import */
  skipBadPhotos?: boolean;
  onNote?: (text: string) => void;
}

/** The import's statements: upserts everything by SKU/slug/code inside the caller's transaction (the file is already checked). */
export async function writeCatalogue(
  tx: Db,
  companyId: string,
  file: CatalogueFile,
  photos: Map<string, PhotoCopy>,
  onProgress?: ImportOptions['onProgress'],
): Promise<ImportSummary> {
  const summary: ImportSummary = { locations: 0, categories: 0, brands: 0, products: 0, variants: 0, photos: 0 };
  if (file.seller) await writeTaxProfile(tx, companyId, checkTaxProfile(undefined, file.seller), new Date());
  // the company's active ship-from location, before and after the file's locations: every in-stock flag follows it
  const activeShipFrom = async () =>
    (await tx.query<{ id: string }>(sql`SELECT id FROM stock_locations WHERE company_id = ${companyId} AND ships_orders AND active`))[0]?.id;
  const shipFromBefore = file.locations.length ? await activeShipFrom() : undefined;
  const shipFrom = file.locations.find((l) => l.ships_orders);
  if (shipFrom)
    await tx.query(sql`UPDATE stock_locations SET ships_orders = false WHERE company_id = ${companyId} AND code <> ${shipFrom.code} AND ships_orders`);
  for (const l of file.locations) {
    await tx.query(sql`INSERT INTO stock_locations (company_id, id, code, name, kind, active, ships_orders)
      VALUES (${companyId}, ${newId('loc')}, ${l.code}, ${l.name}, ${l.kind}, ${l.active}, ${l.ships_orders})
      ON CONFLICT (company_id, code) DO UPDATE SET name = EXCLUDED.name, kind = EXCLUDED.kind, active = EXCLUDED.active, ships_orders = EXCLUDED.ships_orders`);
    summary.locations++;
  }
  const shipFromMoved = file.locations.length > 0 && (await activeShipFrom()) !== shipFromBefore;
  for (const c of file.categories) {
    await tx.query(sql`INSERT INTO categories (company_id, id, name, slug) VALUES (${companyId}, ${newId('cat')}, ${c.name}, ${c.slug})
      ON CONFLICT (company_id, slug) DO UPDATE SET name = EXCLUDED.name`);
    summary.categories++;
  }
  for (const c of file.categories) {
    await tx.query(sql`UPDATE categories c SET parent_id = (SELECT id FROM categories WHERE company_id = ${companyId} AND slug = ${c.parent})
      WHERE c.company_id = ${companyId} AND c.slug = ${c.slug}`);
  }
  for (const b of file.brands) {
    await tx.query(sql`INSERT INTO brands (company_id, id, name, slug) VALUES (${companyId}, ${newId('brand')}, ${b.name}, ${b.slug})
      ON CONFLICT (company_id, slug) DO UPDATE SET name = EXCLUDED.name`);
    summary.brands++;
  }
  const idsOf = async (table: 'categories' | 'brands' | 'stock_locations', key: 'slug' | 'code') => {
    // id and the key column (slug or code, both text) of the table named
    const rows = await tx.query<{ id: string; k: string }>(
      sql`SELECT id, ${sql.identifier(key)} AS k FROM ${sql.identifier(table)} WHERE company_id = ${companyId}`,
    );
    return new Map(rows.map((r) => [r.k, r.id]));
  };
  // one connection in a transaction: one statement at a time
  const categoryId = await idsOf('categories', 'slug');
  const brandId = await idsOf('brands', 'slug');
  const locationId = await idsOf('stock_locations', 'code');

  // Barcodes may move between variants of this file: clear them first so the unique index never trips midway.
  const fileSkus = file.products.flatMap((p) => p.variants.map((v) => v.sku));
  if (fileSkus.length)
    await tx.query(
      sql`UPDATE variants SET barcode = NULL WHERE company_id = ${companyId} AND sku = ANY(${sql.param(fileSkus)}::text[]) AND barcode IS NOT NULL`,
    );

  let pending: string[] = [];
  for (const [i, p] of file.products.entries()) {
    const [{ id: productId }] = await tx.query<Pick<ProductRow, 'id'>>(sql`
      INSERT INTO products (company_id, id, sku, name, sort_name, description, unit, hsn_code, tax_rate, active, category_id, brand_id)
      VALUES (${companyId}, ${newId('prod')}, ${p.sku}, ${p.name}, ${p.name.toLowerCase()}, ${p.description}, ${p.unit}, ${p.hsn_code}, ${p.tax_rate},
              ${p.active}, ${p.category ? categoryId.get(p.category) : null}, ${p.brand ? brandId.get(p.brand) : null})
      ON CONFLICT (company_id, sku) DO UPDATE SET name = EXCLUDED.name, sort_name = EXCLUDED.sort_name, description = EXCLUDED.description,
        unit = EXCLUDED.unit, hsn_code = EXCLUDED.hsn_code, tax_rate = EXCLUDED.tax_rate, active = EXCLUDED.active,
        category_id = EXCLUDED.category_id, brand_id = EXCLUDED.brand_id, updated_at = EXCLUDED.updated_at
      RETURNING id`);
    await tx.query(sql`DELETE FROM product_photos WHERE company_id = ${companyId} AND product_id = ${productId}`);
    let position = 0;
    const addPhoto = async (ph: { file: string; alt: string | null }, variantId: string | null) => {
      await tx.query(sql`INSERT INTO product_photos (company_id, id, product_id, variant_id, path, alt, position)
        VALUES (${companyId}, ${newId('photo')}, ${productId}, ${variantId}, ${photos.get(ph.file)!.target}, ${ph.alt}, ${position++})`);
      summary.photos++;
    };
    for (const ph of p.photos) await addPhoto(ph, null);
    for (const [j, v] of p.variants.entries()) {
      const name = v.name ?? (Object.values(v.attributes).join(' / ') || p.name);
      const [{ id: variantId }] = await tx.query<Pick<VariantRow, 'id'>>(sql`
        INSERT INTO variants (company_id, id, product_id, sku, barcode, name, attributes, position, selling_price, mrp, active)
        VALUES (${companyId}, ${newId('var')}, ${productId}, ${v.sku}, ${v.barcode}, ${name}, ${JSON.stringify(v.attributes)}::jsonb, ${j},
                ${v.selling_price}, ${v.mrp ?? v.selling_price}, ${v.active})
        ON CONFLICT (company_id, sku) DO UPDATE SET barcode = EXCLUDED.barcode, name = EXCLUDED.name, attributes = EXCLUDED.attributes,
          position = EXCLUDED.position, selling_price = EXCLUDED.selling_price, mrp = EXCLUDED.mrp, active = EXCLUDED.active, updated_at = EXCLUDED.updated_at
        RETURNING id`);
      for (const [code, onHand] of Object.entries(v.stock)) {
        await tx.query(sql`INSERT INTO stock_levels (company_id, variant_id, location_id, on_hand) VALUES (${companyId}, ${variantId}, ${locationId.get(code)}, ${onHand})
          ON CONFLICT (company_id, variant_id, location_id) DO UPDATE SET on_hand = EXCLUDED.on_hand, updated_at = EXCLUDED.updated_at`);
      }
      for (const ph of v.photos) await addPhoto(ph, variantId);
      summary.variants++;
    }
    summary.products++;
    pending.push(productId);
    if (pending.length >= CHUNK || i === file.products.length - 1) {
      await refreshSearchText(tx, companyId, pending);
      await refreshListing(tx, companyId, pending);
      pending = [];
      onProgress?.(i + 1, file.products.length);
    }
  }
  if (shipFromMoved) await refreshInStockOfCompany(tx, companyId); // the rule reads another location now
  // categories, brands and photos too: every instance's read model is rebuilt on its next request
  await bumpCatalogueVersion(tx, companyId);
  return summary;
}
